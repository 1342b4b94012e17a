"""Write corpora/support-tickets: short customer-support messages in three classes.

The corpus is made here, from the phrase lists below and a fixed seed, so that it can be
shipped with nbtext and rebuilt byte for byte:

    python corpora/make_support_tickets.py

It is deliberately a little messy, like real input: classes share vocabulary, some messages
mix topics, one file has CRLF line ends, one is latin-1 (not valid UTF-8) and one is empty.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

SEED = 13
PER_CLASS = {"train": 80, "test": 40}

OPENINGS = ["Hi,", "Hello team,", "Good morning.", "Hey there,", "Dear support,", "Hi again,", "", "Urgent:"]
CLOSINGS = ["Thanks.", "Regards, Sam", "Please help asap.", "Cheers", "Thank you in advance!", "", "Best, Kim"]
SHARED = [
    "I have been a customer for years.", "This is the second time I write about it.",
    "My account email is the same as before.", "Please get back to me today.",
    "I tried your help page first.", "The order number is in the subject.",
]
TOPICS = {
    "billing": [
        "I was charged twice for my subscription this month.",
        "The invoice shows the wrong amount and the wrong VAT number.",
        "Please refund the payment for the order I cancelled.",
        "My credit card was declined but the money left my bank account.",
        "Why did the price of my plan go up without notice?",
        "I need a receipt for my expense report.",
        "Can I pay the invoice by bank transfer instead of card?",
        "The discount code was not applied at checkout.",
        "You billed my old card after I updated my payment details.",
        "I want to cancel my subscription and stop the monthly charge.",
    ],
    "shipping": [
        "My parcel has not arrived and tracking has not moved for a week.",
        "The courier says the package was delivered but nothing is at my door.",
        "Can you change the delivery address on my order?",
        "The box arrived damaged and two items are missing.",
        "When will my order ship? It still says processing.",
        "I need express delivery before Friday.",
        "The tracking number you sent does not work on the carrier site.",
        "My order was sent to the wrong country.",
        "Can I pick the parcel up at a depot instead?",
        "Half of my order came and the rest is still in the warehouse.",
    ],
    "technical": [
        "The app crashes every time I open the settings page.",
        "I cannot log in; the password reset email never arrives.",
        "The website shows error 500 when I upload a photo.",
        "Sync between my phone and laptop stopped working after the update.",
        "The export button does nothing in Firefox.",
        "Two-factor codes are rejected as invalid.",
        "The dashboard is very slow and times out.",
        "After the latest version the app drains my battery.",
        "I get a blank screen after signing in on Android.",
        "The API returns 401 although my token is new.",
    ],
}


def message(rng: random.Random, label: str) -> str:
    """One ticket: mostly its own topic, sometimes a sentence of another, plus filler."""
    sentences = rng.sample(TOPICS[label], rng.randint(1, 3))
    if rng.random() < 0.25:
        other = rng.choice([t for t in TOPICS if t != label])
        sentences.append(rng.choice(TOPICS[other]))
    sentences += rng.sample(SHARED, rng.randint(0, 2))
    rng.shuffle(sentences)
    lines = [rng.choice(OPENINGS), " ".join(sentences), rng.choice(CLOSINGS)]
    return "\n".join(line for line in lines if line) + "\n"


def build(root: Path) -> None:
    rng = random.Random(SEED)
    if root.exists():
        shutil.rmtree(root)
    for split, n in PER_CLASS.items():
        for label in TOPICS:
            folder = root / split / label
            folder.mkdir(parents=True)
            for i in range(n):
                (folder / f"{i:03d}.txt").write_bytes(message(rng, label).encode("utf-8"))
    # The mess real folders have.
    (root / "train" / "billing" / "080.txt").write_bytes(
        "Bonjour, la facture indique 120 \u20ac mais j'ai pay\u00e9 100.\n".replace("\u20ac", "EUR").encode("latin-1")
    )
    (root / "train" / "technical" / "080.txt").write_bytes(b"Hello,\r\nThe app crashes on start.\r\nThanks.\r\n")
    (root / "train" / "shipping" / "080.txt").write_bytes(b"")


if __name__ == "__main__":
    build(Path(__file__).resolve().parent / "support-tickets")
