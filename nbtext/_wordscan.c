/* The compiled side of a word table (vectorizing.WordTable), fixed (a model's words) or
 * growing (training):
 * - intern numbers the words of the model's terms and fills an open-addressing hash table
 *   of them;
 * - scan makes one pass over a batch's byte buffer that finds every run of two or more word
 *   bytes (for joined tokens, runs that go on through joining bytes between word bytes) and
 *   looks its bytes up in that table, byte for byte (two words never merge); a growing table
 *   takes in the words it lacks;
 * - scan_chars does the same for char_wb, whose words are each word's character n-grams: a
 *   word with its spaces is a run of the buffer (Python puts one space between words), so
 *   every n-gram is a span of it, found and taken in as scan's runs are;
 * - count turns each document's word numbers into its unigram and bigram columns (a second
 *   hash table, filled by build_pairs) and counts them, each row sorted; a growing table
 *   gives a new pair the next column;
 * - sort_words puts a growing table's words in order, for writing its terms out sorted.
 *
 * The numpy path does the same in about twenty passes over arrays as long as the batch's
 * tokens (find the runs, key them, sort the keys, search the model's keys, then the pairs and
 * a sort of the batch's (row, column) keys); per-token work is where C pays. The arrays come
 * from vectorizing.py, which makes them with these types (int64, uint8); their sizes and the
 * values used as indices are checked here. The loops release the interpreter lock, so
 * threads work on blocks side by side.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* splitmix64's finalizer: every input bit moves every output bit. */
static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* The first n (at most 8) bytes at p as a zero-filled little-endian word; room is how many
 * bytes may be read at p (8 fixed bytes are one load, where a memcpy of n bytes is a call). */
static inline uint64_t first_bytes(const uint8_t *p, Py_ssize_t n, Py_ssize_t room)
{
    uint64_t word = 0;
    if (room < 8) {
        for (Py_ssize_t k = 0; k < n; k++)
            word |= (uint64_t)p[k] << (8 * k);
        return word;
    }
    memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    return n >= 8 ? word : word & ((UINT64_C(1) << (8 * n)) - 1);
}

/* A word's tag: up to 8 bytes, the bytes themselves (exact: a word byte is never 0, so the
 * first byte is not); longer, a hash of them with the lowest byte 0, checked against the
 * word's bytes when it matches. */
static inline uint64_t tag_of(const uint8_t *p, Py_ssize_t n, Py_ssize_t room)
{
    if (n <= 8)
        return first_bytes(p, n, room);
    uint64_t h = mix((uint64_t)n);
    for (; n > 8; p += 8, n -= 8, room -= 8)
        h = mix(h ^ first_bytes(p, 8, room));
    return mix(h ^ first_bytes(p, n, room)) & ~(uint64_t)0xFF;
}

/* The words of the table: their bytes in `store`, where each starts, how long it is; and the
 * slots, each a (tag, word number) pair, word number -1 where empty. A slot holds the tag so
 * that a probe reads one slot, not the word's bytes, unless the word is long. */
typedef struct {
    uint64_t tag;
    int64_t word;
} Slot;

typedef struct {
    const uint8_t *store;
    const int64_t *starts;
    const int64_t *lengths;
    Slot *slots;
    uint64_t mask;
    /* A growing table (training): a run not in the table joins it, numbered after the n_known
     * words of the store, its (start, length) in the batch kept in added, room for `room`. */
    int growing;
    Py_ssize_t n_known, n_added, room;
    const uint8_t *batch;
    int64_t *added;
} Table;

#define FULL (-2)

/* Whether word w of the table is the n bytes at p (no word it does not know is: slots left
 * from a batch whose words never reached the store must not be read through). */
static inline int same_word(const Table *t, int64_t w, const uint8_t *p, Py_ssize_t n)
{
    if (w < t->n_known)
        return t->lengths[w] == n && memcmp(t->store + t->starts[w], p, (size_t)n) == 0;
    if (w >= t->n_known + t->n_added)
        return 0;
    const int64_t *span = t->added + 2 * (w - t->n_known);
    return span[1] == n && memcmp(t->batch + span[0], p, (size_t)n) == 0;
}

/* The number of the word at p (n bytes, room to read): -1 if a fixed table lacks it; a
 * growing one adds it, or returns FULL where it has no room left. */
static int64_t find(Table *t, const uint8_t *p, Py_ssize_t n, Py_ssize_t room)
{
    uint64_t tag = tag_of(p, n, room), at = mix(tag) & t->mask;
    Slot *slot;
    while ((slot = t->slots + at)->word >= 0) {
        if (slot->tag == tag && (n <= 8 || same_word(t, slot->word, p, n)))
            return slot->word;
        at = (at + 1) & t->mask;
    }
    if (!t->growing)
        return -1;
    if (t->n_added == t->room)
        return FULL;
    t->added[2 * t->n_added] = p - t->batch;
    t->added[2 * t->n_added + 1] = n;
    slot->tag = tag;
    return slot->word = t->n_known + t->n_added++;
}

/* The table's views, checked for size: word numbers index starts and lengths, every word lies
 * inside store, and the slot count is a power of two larger than the word count. */
static int table_of(Table *t, Py_buffer *store, Py_buffer *starts, Py_buffer *lengths, Py_buffer *slots)
{
    Py_ssize_t n_words = starts->len / 8, n_slots = slots->len / (Py_ssize_t)sizeof(Slot);
    if (starts->len % 8 || lengths->len != starts->len || slots->len % sizeof(Slot) || n_slots <= n_words
        || (n_slots & (n_slots - 1))) {
        PyErr_SetString(PyExc_ValueError, "word table arrays of the wrong size");
        return -1;
    }
    t->store = store->buf;
    t->starts = starts->buf;
    t->lengths = lengths->buf;
    t->slots = slots->buf;
    t->mask = (uint64_t)n_slots - 1;
    t->n_known = n_words;
    t->growing = 0;
    for (Py_ssize_t i = 0; i < n_words; i++) {
        if (t->starts[i] < 0 || t->lengths[i] < 0 || t->starts[i] + t->lengths[i] > store->len) {
            PyErr_SetString(PyExc_ValueError, "a word lies outside the store");
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(intern_doc, "intern(buffer, starts, lengths, slots, numbers, firsts) -> n\n\n"
             "Number the distinct words among the spans buffer[starts[i]:starts[i] + lengths[i]]\n"
             "(int64) in order of first appearance: numbers[i] is span i's word, firsts[w] the\n"
             "first span of word w (int64, as many as the spans). slots (int64 (tag, word) pairs,\n"
             "a power of two of them, all -1) end up as scan reads them. Returns how many words\n"
             "there are, or -1 if they would fill more than half the slots (call again with\n"
             "more).");

static PyObject *intern(PyObject *self, PyObject *args)
{
    Py_buffer buffer, starts, lengths, slots, numbers, firsts;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*w*", &buffer, &starts, &lengths, &slots, &numbers, &firsts))
        return NULL;
    Py_ssize_t n = starts.len / 8, n_slots = slots.len / (Py_ssize_t)sizeof(Slot), n_words = 0;
    const int64_t *start = starts.buf, *length = lengths.buf;
    int ok = !(starts.len % 8 || lengths.len != starts.len || numbers.len != starts.len || firsts.len != starts.len
               || slots.len % sizeof(Slot) || n_slots < 2 || (n_slots & (n_slots - 1)));
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "intern: arrays of the wrong size");
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        if (start[i] < 0 || length[i] < 1 || start[i] + length[i] > buffer.len) {
            PyErr_SetString(PyExc_ValueError, "intern: a span lies outside the buffer");
            ok = 0;
        }
    }
    if (ok) {
        const uint8_t *text = buffer.buf;
        Slot *slot = slots.buf;
        int64_t *number = numbers.buf, *first = firsts.buf;
        const uint64_t mask = (uint64_t)n_slots - 1;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < n && n_words >= 0; i++) {
            const uint8_t *p = text + start[i];
            Py_ssize_t size = length[i];
            uint64_t tag = tag_of(p, size, buffer.len - start[i]), at = mix(tag) & mask;
            for (;; at = (at + 1) & mask) {
                int64_t word = slot[at].word;
                if (word < 0 && 2 * (n_words + 1) > n_slots) {
                    n_words = -1;  /* full */
                    break;
                }
                if (word < 0) {
                    slot[at].tag = tag;
                    slot[at].word = word = n_words++;
                    first[word] = i;
                } else if (slot[at].tag != tag
                           || (size > 8 && (length[first[word]] != size
                                            || memcmp(text + start[first[word]], p, (size_t)size) != 0))) {
                    continue;
                }
                number[i] = word;
                break;
            }
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&buffer);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&lengths);
    PyBuffer_Release(&slots);
    PyBuffer_Release(&numbers);
    PyBuffer_Release(&firsts);
    return ok ? PyLong_FromSsize_t(n_words) : NULL;
}

/* Record the run text[start:end], without the joining bytes at its ends (kind 2), if `shortest`
 * (1 or 2) or more characters are left: its word number and its document; -1 if the table is
 * full. The text is UTF-8, so a run of 2 to 4 bytes is one character where its first byte
 * begins a character of that many bytes. */
static inline Py_ssize_t emit(Table *t, const uint8_t *text, Py_ssize_t n_text, Py_ssize_t start, Py_ssize_t end,
                              const uint8_t *kind, int joins, int shortest, const int64_t *doc, Py_ssize_t n_docs,
                              Py_ssize_t *d, int64_t *number, int64_t *row, Py_ssize_t found)
{
    if (joins) {
        while (start < end && kind[text[start]] != 1)
            start++;
        while (end > start && kind[text[end - 1]] != 1)
            end--;
    }
    if (end - start < shortest)
        return found;
    if (shortest > 1 && end - start <= 4) {
        uint8_t lead = text[start];
        if (end - start == (lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0))
            return found;
    }
    while (*d + 1 < n_docs && doc[*d + 1] <= start)
        ++*d;
    if ((number[found] = find(t, text + start, end - start, n_text - start)) == FULL)
        return -1;
    row[found] = *d;
    return found + 1;
}

/* Let a table grow from the batch in buffer: a word it lacks is written to added as its
 * (start, length) in buffer; fixed where added is empty. */
static void grow_into(Table *t, Py_buffer *buffer, Py_buffer *added)
{
    t->growing = added->len > 0;
    t->n_added = 0;
    t->room = added->len / 16;
    t->batch = buffer->buf;
    t->added = added->buf;
}

/* A scan's result, (n, n_added), or NULL where it failed (not ok); its buffers (a list that
 * ends with NULL) released either way. */
static PyObject *scanned(int ok, Py_ssize_t found, const Table *t, Py_buffer *buffers[])
{
    for (; *buffers; buffers++)
        PyBuffer_Release(*buffers);
    return ok ? Py_BuildValue("nn", found, t->n_added) : NULL;
}

PyDoc_STRVAR(scan_doc, "scan(buffer, byte_kind, shortest, doc_starts, store, starts, lengths, slots, numbers, rows,"
             " added) -> (n, n_added)\n\n"
             "Write the word number and the document of each run of `shortest` (1 or 2) or more word\n"
             "characters of buffer (UTF-8) into numbers and rows (int64, buffer's length // 2 + 1\n"
             "each); return how many runs there were. byte_kind gives each byte value's kind: 1 a\n"
             "word byte, 2 a joining byte (a run goes on through it, but never begins or ends with\n"
             "it), 0 neither.\n"
             "With added empty, the table is fixed: a word not in it is numbered -1. Else it\n"
             "grows: such a word is numbered after the table's, and its (start, length) in buffer\n"
             "written to added (int64 pairs), n_added of them; n is -1 if added has no room left\n"
             "(the slots then hold some of the batch's words: rebuild them).");

static PyObject *scan(PyObject *self, PyObject *args)
{
    Py_buffer buffer, byte_kind, doc_starts, store, starts, lengths, slots, numbers, rows, added;
    int shortest;
    if (!PyArg_ParseTuple(args, "y*y*iy*y*y*y*y*w*w*w*", &buffer, &byte_kind, &shortest, &doc_starts, &store, &starts,
                          &lengths, &slots, &numbers, &rows, &added))
        return NULL;
    Table t;
    Py_ssize_t found = 0;
    int ok = table_of(&t, &store, &starts, &lengths, &slots) == 0;
    if (ok && (shortest < 1 || shortest > 2)) {
        PyErr_SetString(PyExc_ValueError, "scan's shortest run is 1 or 2 characters");
        ok = 0;
    }
    if (ok && (byte_kind.len != 256 || doc_starts.len % 8 || numbers.len < 8 * (buffer.len / 2 + 1)
               || rows.len != numbers.len || added.len % 16)) {
        PyErr_SetString(PyExc_ValueError, "scan arrays of the wrong size");
        ok = 0;
    }
    grow_into(&t, &buffer, &added);
    if (ok) {
        const uint8_t *text = buffer.buf, *kind = byte_kind.buf;
        const int64_t *doc = doc_starts.buf;
        int64_t *number = numbers.buf, *row = rows.buf;
        Py_ssize_t n = buffer.len, n_docs = doc_starts.len / 8, d = 0;
        uint8_t in_run[256];
        int joins = 0;
        for (int b = 0; b < 256; b++) {
            in_run[b] = kind[b] != 0;
            joins |= kind[b] == 2;
        }
        Py_BEGIN_ALLOW_THREADS
        /* 64 bytes at a time: a bit mask of the run bytes, whose changes (a run's start, then
         * its end) are taken lowest first; no branch per byte. */
        uint64_t previous = 0;
        Py_ssize_t start = 0;
        for (Py_ssize_t block = 0; block < n && found >= 0; block += 64) {
            Py_ssize_t size = n - block < 64 ? n - block : 64;
            const uint8_t *p = text + block;
            uint64_t mask = 0;
            for (Py_ssize_t k = 0; k < size; k++)
                mask |= (uint64_t)in_run[p[k]] << k;
            uint64_t changes = mask ^ (mask << 1 | previous >> 63);
            previous = mask;
            while (changes && found >= 0) {
                int k = __builtin_ctzll(changes);
                changes &= changes - 1;
                Py_ssize_t at = block + k;
                if (mask >> k & 1)
                    start = at;
                else
                    found = emit(&t, text, n, start, at, kind, joins, shortest, doc, n_docs, &d, number, row, found);
            }
        }
        /* A run up to the end of a last block that was whole (a shorter one ends in zero bits). */
        if (found >= 0 && n % 64 == 0 && n > 0 && in_run[text[n - 1]])
            found = emit(&t, text, n, start, n, kind, joins, shortest, doc, n_docs, &d, number, row, found);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&byte_kind);
    return scanned(ok, found, &t, (Py_buffer *[]){&buffer, &doc_starts, &store, &starts, &lengths, &slots, &numbers,
                                                  &rows, &added, NULL});
}

/* The start of the UTF-8 character after the one at p, or end. */
static inline const uint8_t *next_character(const uint8_t *p, const uint8_t *end)
{
    for (p++; p < end && (*p & 0xC0) == 0x80; p++)
        ;
    return p;
}

PyDoc_STRVAR(scan_chars_doc, "scan_chars(buffer, low, high, doc_starts, store, starts, lengths, slots, numbers, rows,"
             " added) -> (n, n_added)\n\n"
             "As scan, for character n-grams: the words of buffer (UTF-8) are its runs of bytes other\n"
             "than space and NUL, each with a space before and after it in buffer. Each word's n-grams of\n"
             "low to high characters, the two spaces included, are found as scan finds words, in the\n"
             "order of the words, then of n, then of where they start; a word of no more than n\n"
             "characters with its spaces is one n-gram, whole, and ends its n-grams. numbers and rows\n"
             "hold one int64 per n-gram; n is -2 if they are too short.");

static PyObject *scan_chars(PyObject *self, PyObject *args)
{
    Py_buffer buffer, doc_starts, store, starts, lengths, slots, numbers, rows, added;
    int low, high;
    if (!PyArg_ParseTuple(args, "y*iiy*y*y*y*y*w*w*w*", &buffer, &low, &high, &doc_starts, &store, &starts, &lengths,
                          &slots, &numbers, &rows, &added))
        return NULL;
    Table t;
    Py_ssize_t found = 0;
    int ok = table_of(&t, &store, &starts, &lengths, &slots) == 0;
    if (ok && (low < 1 || high < low || doc_starts.len % 8 || numbers.len % 8 || rows.len != numbers.len
               || added.len % 16)) {
        PyErr_SetString(PyExc_ValueError, "scan_chars: bad n-gram range, or arrays of the wrong size");
        ok = 0;
    }
    const uint8_t *text = buffer.buf, *end = text + buffer.len;
    for (Py_ssize_t i = 0; ok && i < buffer.len; i++) {  /* every word has its spaces */
        int inside = text[i] != ' ' && text[i] != 0;
        if (inside && (i == 0 || i + 1 == buffer.len || text[i - 1] == 0 || text[i + 1] == 0)) {
            PyErr_SetString(PyExc_ValueError, "scan_chars: a word without a space before and after it");
            ok = 0;
        }
    }
    grow_into(&t, &buffer, &added);
    if (ok) {
        const int64_t *doc = doc_starts.buf;
        int64_t *number = numbers.buf, *row = rows.buf;
        Py_ssize_t n_docs = doc_starts.len / 8, capacity = numbers.len / 8, d = 0;
        Py_BEGIN_ALLOW_THREADS
        const uint8_t *p = text;
        while (found >= 0 && p < end) {
            if (*p == ' ' || *p == 0) {
                p++;
                continue;
            }
            const uint8_t *first = p - 1, *last = p;  /* the word with its spaces: [first, last) */
            while (*last != ' ' && *last != 0)
                last++;
            last++;
            p = last;
            while (d + 1 < n_docs && doc[d + 1] <= first - text)
                d++;
            for (int n = low; n <= high && found >= 0; n++) {
                const uint8_t *a = first, *b = first;
                for (int k = 0; k < n && b < last; k++)
                    b = next_character(b, last);
                int whole = b == last;
                for (;;) {
                    if (found == capacity) {
                        found = -2;
                        break;
                    }
                    int64_t word = find(&t, a, b - a, end - a);
                    if (word == FULL) {
                        found = -1;
                        break;
                    }
                    number[found] = word;
                    row[found++] = d;
                    if (b == last)
                        break;
                    a = next_character(a, last);
                    b = next_character(b, last);
                }
                if (whole)
                    break;
            }
        }
        Py_END_ALLOW_THREADS
    }
    return scanned(ok, found, &t, (Py_buffer *[]){&buffer, &doc_starts, &store, &starts, &lengths, &slots, &numbers,
                                                  &rows, &added, NULL});
}

/* The bigrams of the table: open-addressing slots of (first << 32 | second word number, column),
 * column -1 where empty. */
typedef struct {
    uint64_t pair;
    int64_t column;
} PairSlot;

static int pair_slots_of(Py_buffer *slots, PairSlot **out, uint64_t *mask)
{
    Py_ssize_t n = slots->len / (Py_ssize_t)sizeof(PairSlot);
    if (slots->len % sizeof(PairSlot) || n == 0 || (n & (n - 1))) {
        PyErr_SetString(PyExc_ValueError, "pair slots of the wrong size");
        return -1;
    }
    *out = slots->buf;
    *mask = (uint64_t)n - 1;
    return 0;
}

/* The slot of a pair, or the empty slot where it would go. */
static inline PairSlot *pair_slot(PairSlot *slots, uint64_t mask, uint64_t pair)
{
    for (uint64_t at = mix(pair) & mask;; at = (at + 1) & mask) {
        if (slots[at].column < 0 || slots[at].pair == pair)
            return slots + at;
    }
}

PyDoc_STRVAR(build_pairs_doc, "build_pairs(pairs, columns, slots)\n\n"
             "Put each (first << 32 | second) of pairs (uint64, distinct) with its column (int64,\n"
             "at least 0) into slots (int64 (pair, column) pairs, a power of two of them above\n"
             "the pairs' count, all -1).");

static PyObject *build_pairs(PyObject *self, PyObject *args)
{
    Py_buffer pairs, columns, slots;
    if (!PyArg_ParseTuple(args, "y*y*w*", &pairs, &columns, &slots))
        return NULL;
    PairSlot *table;
    uint64_t mask;
    Py_ssize_t n = pairs.len / 8;
    int ok = pair_slots_of(&slots, &table, &mask) == 0;
    if (ok && (pairs.len % 8 || columns.len != pairs.len || (uint64_t)n > mask)) {
        PyErr_SetString(PyExc_ValueError, "pairs and columns of the wrong size");
        ok = 0;
    }
    const uint64_t *pair = pairs.buf;
    const int64_t *column = columns.buf;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        if (column[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "a pair's column is negative");
            ok = 0;
        }
    }
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        uint64_t at = mix(pair[i]) & mask;
        while (table[at].column >= 0)
            at = (at + 1) & mask;
        table[at].pair = pair[i];
        table[at].column = column[i];
    }
    PyBuffer_Release(&pairs);
    PyBuffer_Release(&columns);
    PyBuffer_Release(&slots);
    return ok ? Py_NewRef(Py_None) : NULL;
}

/* Add one occurrence of column c to the document whose distinct columns so far end at
 * indices[*end] (no branch: the column is written anyway, and kept if it is new). */
static inline void add_column(int64_t c, int32_t *counts, int64_t *indices, Py_ssize_t *end)
{
    indices[*end] = c;
    *end += counts[c]++ == 0;
}

/* A value of the batch on its way to its place: (document << column bits | column), count. */
typedef struct {
    uint64_t key;
    double value;
} Entry;

/* Put each document's values (each document's in indices[indptr[d]:indptr[d + 1]]) in column
 * order: a stable radix sort of the whole batch by (document, column), 11 bits a pass, which
 * is a few passes over the values where sorting each document is a few comparisons per value.
 * Returns -1 if out of memory. */
static int sort_by_column(int64_t *indices, double *data, const int64_t *indptr, Py_ssize_t n_docs, Py_ssize_t n,
                          Py_ssize_t n_columns)
{
    int column_bits = 0, key_bits;
    while (column_bits < 63 && ((uint64_t)1 << column_bits) < (uint64_t)n_columns)
        column_bits++;
    for (key_bits = column_bits; key_bits < 64 && ((uint64_t)n_docs - 1) >> (key_bits - column_bits); key_bits++)
        ;
    Entry *entries = PyMem_RawMalloc(2 * (size_t)(n ? n : 1) * sizeof(Entry)), *other = entries + n;
    Py_ssize_t *bucket = PyMem_RawMalloc(2048 * sizeof(Py_ssize_t));
    if (entries == NULL || bucket == NULL) {
        PyMem_RawFree(entries);
        PyMem_RawFree(bucket);
        return -1;
    }
    for (Py_ssize_t d = 0; d < n_docs; d++)
        for (int64_t v = indptr[d]; v < indptr[d + 1]; v++)
            entries[v] = (Entry){(uint64_t)d << column_bits | (uint64_t)indices[v], data[v]};
    for (int shift = 0; shift < key_bits; shift += 11) {
        memset(bucket, 0, 2048 * sizeof(Py_ssize_t));
        for (Py_ssize_t v = 0; v < n; v++)
            bucket[entries[v].key >> shift & 2047]++;
        for (Py_ssize_t k = 0, at = 0; k < 2048; k++) {
            Py_ssize_t size = bucket[k];
            bucket[k] = at;
            at += size;
        }
        for (Py_ssize_t v = 0; v < n; v++)
            other[bucket[entries[v].key >> shift & 2047]++] = entries[v];
        Entry *t = entries;
        entries = other;
        other = t;
    }
    const uint64_t column_mask = ((uint64_t)1 << column_bits) - 1;
    for (Py_ssize_t v = 0; v < n; v++) {
        indices[v] = (int64_t)(entries[v].key & column_mask);
        data[v] = entries[v].value;
    }
    PyMem_RawFree(entries < other ? entries : other);
    PyMem_RawFree(bucket);
    return 0;
}

PyDoc_STRVAR(count_doc, "count(numbers, rows, dropped, unigram, pair_slots, ngrams, n_columns, indptr, indices, data,"
             " added) -> (n, n_added)\n\n"
             "Count the columns of each document, given each token's word number (-1: unknown) and\n"
             "document in order (int64 numbers and rows, as scan writes them): a kept word's unigram\n"
             "column (int64 by word number, -1: none) where ngrams is 1 or 3, and the column of\n"
             "each pair of known words next to each other (pair_slots, as build_pairs fills them)\n"
             "where ngrams is 2 or 3. Words marked in dropped (one byte each) are taken out first.\n"
             "Writes the CSR indptr (n_docs + 1), indices (int64, sorted in each row) and data\n"
             "(float64); indices and data must hold twice as many values as there are tokens.\n"
             "Returns how many values were written. With added empty, a pair not in pair_slots is\n"
             "not counted; else it gets the next column from n_columns on, joins the slots and is\n"
             "written to added (uint64), n_added of them; n is -1 if added has no room left (the\n"
             "slots then hold some of the batch's pairs: rebuild them).");

static PyObject *count(PyObject *self, PyObject *args)
{
    Py_buffer numbers, rows, dropped, unigram, pair_slots, indptr, indices, data, added;
    int ngrams;
    Py_ssize_t n_columns;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*inw*w*w*w*", &numbers, &rows, &dropped, &unigram, &pair_slots, &ngrams,
                          &n_columns, &indptr, &indices, &data, &added))
        return NULL;
    PairSlot *pairs;
    uint64_t mask;
    Py_ssize_t n = numbers.len / 8, n_words = unigram.len / 8, n_docs = indptr.len / 8 - 1, written = 0;
    /* New pairs: at most one a token, and as many as added has room for. */
    Py_ssize_t room = added.len / 8 < n ? added.len / 8 : n, n_added = 0;
    int ok = pair_slots_of(&pair_slots, &pairs, &mask) == 0;
    if (ok && (numbers.len % 8 || rows.len != numbers.len || unigram.len % 8 || dropped.len != n_words
               || indptr.len % 8 || n_docs < 0 || indices.len < 16 * n || data.len < 16 * n || ngrams < 1
               || ngrams > 3 || n_columns < 0 || n_columns > INT32_MAX - room || n > INT32_MAX
               || added.len % 8 || n_words > UINT32_MAX)) {
        PyErr_SetString(PyExc_ValueError, "count arrays of the wrong size");
        ok = 0;
    }
    /* Everything read by index is checked once, here: the word numbers and documents of the
     * tokens, and the unigram columns. A pair's column is checked when it is found (the
     * slots come from Python; build_pairs refuses negative columns). */
    const int64_t *number = numbers.buf, *row = rows.buf, *column_of = unigram.buf;
    const uint8_t *is_dropped = dropped.buf;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        if (number[i] < -1 || number[i] >= n_words || row[i] < (i ? row[i - 1] : 0) || row[i] >= n_docs) {
            PyErr_SetString(PyExc_ValueError, "count: a word number or document out of range or order");
            ok = 0;
        }
    }
    for (Py_ssize_t w = 0; ok && w < n_words; w++) {
        if (column_of[w] < -1 || column_of[w] >= n_columns) {
            PyErr_SetString(PyExc_ValueError, "count: a unigram column out of range");
            ok = 0;
        }
    }
    int any_dropped = n_words > 0 && memchr(is_dropped, 1, (size_t)n_words) != NULL;
    int32_t *counts = ok ? PyMem_RawCalloc((size_t)(n_columns + room) + 1, sizeof(int32_t)) : NULL;
    if (ok && counts == NULL) {
        PyErr_NoMemory();
        ok = 0;
    }
    int64_t bad_pair = -1;
    if (ok) {
        int64_t *ptr = indptr.buf, *column = indices.buf;
        uint64_t *new_pair = added.buf;
        double *value = data.buf;
        int sorted = 0, growing = added.len > 0, full = 0;
        Py_BEGIN_ALLOW_THREADS
        Py_ssize_t i = 0;
        ptr[0] = 0;
        for (Py_ssize_t d = 0; d < n_docs && bad_pair < 0 && !full; d++) {
            Py_ssize_t first = written;
            int64_t previous = -1;
            for (; i < n && row[i] == d; i++) {
                int64_t word = number[i];
                if ((ngrams & 2) && i + 8 < n)  /* the slot of a pair a few tokens on, to the cache */
                    __builtin_prefetch(pairs + (mix((uint64_t)number[i + 7] << 32 | (uint64_t)number[i + 8]) & mask));
                if (any_dropped && word >= 0 && is_dropped[word])
                    continue;  /* out before the pairs are made: its neighbours pair up */
                if ((ngrams & 1) && word >= 0 && column_of[word] >= 0)
                    add_column(column_of[word], counts, column, &written);
                if ((ngrams & 2) && word >= 0 && previous >= 0) {
                    uint64_t pair = (uint64_t)previous << 32 | (uint64_t)word;
                    PairSlot *slot = pair_slot(pairs, mask, pair);
                    int64_t c = slot->column;
                    if (c < 0 && growing) {
                        if (n_added == room) {
                            full = 1;
                            break;
                        }
                        *slot = (PairSlot){pair, c = n_columns + n_added};
                        new_pair[n_added++] = pair;
                    }
                    if (c < -1 || c >= n_columns + n_added) {
                        bad_pair = c;
                        break;
                    }
                    if (c >= 0)
                        add_column(c, counts, column, &written);
                }
                previous = word;
            }
            for (Py_ssize_t v = first; v < written; v++) {
                value[v] = counts[column[v]];
                counts[column[v]] = 0;
            }
            ptr[d + 1] = written;
        }
        if (bad_pair < 0 && !full)
            sorted = sort_by_column(column, value, ptr, n_docs, written, n_columns + n_added) == 0;
        Py_END_ALLOW_THREADS
        PyMem_RawFree(counts);
        if (bad_pair >= 0) {
            PyErr_SetString(PyExc_ValueError, "count: a pair column out of range");
            ok = 0;
        } else if (full) {
            written = -1;
        } else if (!sorted) {
            PyErr_NoMemory();
            ok = 0;
        }
    }
    PyBuffer_Release(&numbers);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&dropped);
    PyBuffer_Release(&unigram);
    PyBuffer_Release(&pair_slots);
    PyBuffer_Release(&indptr);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&data);
    PyBuffer_Release(&added);
    return ok ? Py_BuildValue("nn", written, n_added) : NULL;
}

/* A word of the store (NUL-terminated) and its number, sorted by its bytes as unsigned:
 * UTF-8's byte order is its code points' order, which is Python's. 0xFF, which UTF-8 never
 * has, stands for NUL inside a character n-gram (vectorizing._NUL_IN_WORD): it sorts first. */
typedef struct {
    const uint8_t *bytes;
    int64_t number;
    uint8_t suffix;  /* compared as if it ended the word (written out so), or 0 for none */
} Word;

static inline int byte_rank(uint8_t b)
{
    return b == 0xFF ? 1 : b == 0 ? 0 : b + 1;
}

static int by_bytes(const void *a, const void *b)
{
    const uint8_t *p = ((const Word *)a)->bytes, *q = ((const Word *)b)->bytes;
    for (; *p == *q && *p; p++, q++)
        ;
    if (*p && *q)
        return byte_rank(*p) - byte_rank(*q);
    if (!*p && !*q)
        return 0;
    /* One word has ended: its suffix against the other's byte; past that, the ended one is
     * shorter. */
    int d = byte_rank(((const Word *)a)->suffix) - byte_rank(*p ? *p : *q);
    d = d ? d : -1;
    return *p ? -d : d;
}

PyDoc_STRVAR(sort_words_doc, "sort_words(store, starts, order, suffix=0)\n\n"
             "Write into order (int64, one per word) the word numbers in the order of their bytes\n"
             "(0xFF first, for NUL), each followed by the byte suffix if it is not 0: word w starts\n"
             "at starts[w] in store and ends at the next NUL (store ends with one).");

static PyObject *sort_words(PyObject *self, PyObject *args)
{
    Py_buffer store, starts, order;
    unsigned char suffix = 0;
    if (!PyArg_ParseTuple(args, "y*y*w*|b", &store, &starts, &order, &suffix))
        return NULL;
    Py_ssize_t n = starts.len / 8;
    const int64_t *start = starts.buf;
    int ok = !(starts.len % 8 || order.len != starts.len || store.len == 0
               || ((const uint8_t *)store.buf)[store.len - 1] != 0);
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "sort_words: arrays of the wrong size, or a store without its last NUL");
    for (Py_ssize_t w = 0; ok && w < n; w++) {
        if (start[w] < 0 || start[w] >= store.len) {
            PyErr_SetString(PyExc_ValueError, "sort_words: a word starts outside the store");
            ok = 0;
        }
    }
    Word *words = ok ? PyMem_RawMalloc((size_t)(n ? n : 1) * sizeof(Word)) : NULL;
    if (ok && words == NULL) {
        PyErr_NoMemory();
        ok = 0;
    }
    if (ok) {
        int64_t *out = order.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t w = 0; w < n; w++)
            words[w] = (Word){(const uint8_t *)store.buf + start[w], w, suffix};
        qsort(words, (size_t)n, sizeof(Word), by_bytes);
        for (Py_ssize_t w = 0; w < n; w++)
            out[w] = words[w].number;
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(words);
    PyBuffer_Release(&store);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&order);
    return ok ? Py_NewRef(Py_None) : NULL;
}

static PyMethodDef methods[] = {
    {"intern", intern, METH_VARARGS, intern_doc},
    {"scan", scan, METH_VARARGS, scan_doc},
    {"scan_chars", scan_chars, METH_VARARGS, scan_chars_doc},
    {"build_pairs", build_pairs, METH_VARARGS, build_pairs_doc},
    {"count", count, METH_VARARGS, count_doc},
    {"sort_words", sort_words, METH_VARARGS, sort_words_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_wordscan", "The compiled word scanner of nbtext.vectorizing.", -1, methods,
};

PyMODINIT_FUNC PyInit__wordscan(void)
{
    return PyModule_Create(&module);
}
