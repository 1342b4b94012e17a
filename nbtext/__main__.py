from .cli import main

if __name__ == "__main__":  # worker processes (nbtext.parallel) import this module too
    main()
