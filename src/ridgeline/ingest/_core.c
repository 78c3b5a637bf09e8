/* ridgeline.ingest._core: the record loop in C (see ridgeline/ingest/fastpath.py for the contract it fulfils,
 * and _fastpath_numpy/ for the reference implementation it must agree with on every input).
 *
 * parse(buffer, check_crc, available) splits a buffer of TFRecords, checks both CRCs, extracts the scalar events
 * into columns and resyncs after corruption, all with the GIL released: several threads may parse at once.
 * resume_point(buffer, first, available, intact) is the resync on its own, for callers that stream a damaged span.
 *
 * The input may be hostile. Every length read from it is a uint64 that is compared with what is left of the
 * buffer (never added to an offset before that check), and every read is within [0, n).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_crc32c.h"

#define HEADER_SIZE 12
#define FRAMING 16
#define MIN_SCALAR 11   /* 2a L1 0a L2 0a 00 15 f32: the shortest scalar Event */
#define MAX_SCALAR 4096 /* longer records always take the slow path (the numpy path's bound too) */

enum { REASON_LENGTH_CRC = 0, REASON_DATA_CRC = 1, REASON_PAST_END = 2 };
static const char *const REASONS[] = {"length CRC mismatch", "data CRC mismatch", "length past the end of the file"};
static PyObject *reason_strings[3];

enum { RESUME_FOUND = 0, RESUME_NONE = 1, RESUME_UNDECIDED = 2 };

/* Does a record of data length `length` starting at `at` end at or before `limit` (at <= limit)? */
static inline int record_fits(uint64_t at, uint64_t length, uint64_t limit) {
    return limit - at >= FRAMING && length <= limit - at - FRAMING;
}

static inline int header_ok(const uint8_t *b, size_t at) {
    return masked_crc32c(b + at, 8) == load_le32(b + at + 8);
}

static inline uint32_t mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u; }

/* The first position q >= first with a whole header in the buffer whose length CRC matches; n when none. What a
 * resync spends its time on: one CRC instruction per position where the CPU has them (independent of each other,
 * so they overlap), a table lookup per byte otherwise. */
#ifdef RIDGELINE_HAVE_HARDWARE_CRC
RIDGELINE_CRC_TARGET static size_t next_header_hardware(const uint8_t *b, size_t n, size_t q) {
    for (; n >= HEADER_SIZE && q <= n - HEADER_SIZE; q++)
        if (mask(~crc32c_hardware_u64(0xFFFFFFFFu, load_le64(b + q))) == load_le32(b + q + 8)) return q;
    return n;
}
#endif

static size_t next_header(const uint8_t *b, size_t n, size_t q) {
#ifdef RIDGELINE_HAVE_HARDWARE_CRC
    if (crc32c_hardware) return next_header_hardware(b, n, q);
#endif
    for (; n >= HEADER_SIZE && q <= n - HEADER_SIZE; q++)
        if (header_ok(b, q)) return q;
    return n;
}

/* The first position q >= first (q + 12 <= n) where a record starts after a damaged span:
 * its length CRC matches, and either its record lies in the buffer with a matching data CRC, or (intact == 0
 * only) its claimed end is past `available`, the end of the file (a record still being written).
 * A candidate whose record ends within the file but past the buffer cannot be judged here: UNDECIDED at q. */
static int find_resume(const uint8_t *b, size_t n, uint64_t available, size_t first, int intact, size_t *out) {
    for (size_t q = next_header(b, n, first); q < n; q = next_header(b, n, q + 1)) {
        uint64_t length = load_le64(b + q);
        if (!record_fits(q, length, available)) {
            if (intact) continue;
            *out = q;
            return RESUME_FOUND;
        }
        if (!record_fits(q, length, n)) {
            *out = q;
            return RESUME_UNDECIDED;
        }
        /* record_fits(q, length, n) bounds length below n, so these offsets stay inside the buffer */
        size_t data = q + HEADER_SIZE;
        if (masked_crc32c(b + data, (size_t)length) == load_le32(b + data + (size_t)length)) {
            *out = q;
            return RESUME_FOUND;
        }
    }
    return RESUME_NONE;
}

/* --- tags ----------------------------------------------------------------------------------------------- */
typedef struct {
    const uint8_t *bytes; /* NULL: empty slot */
    uint32_t size;
    int32_t index; /* into the tags list; -1: not UTF-8 (its records take the slow path) */
    uint64_t hash;
    uint64_t head, tail; /* the tag's first and last 8 bytes (see tag_words): all of it up to 16 bytes */
} TagSlot;

typedef struct {
    TagSlot *slots;
    size_t capacity; /* a power of two */
    size_t used;
    int32_t valid; /* tags with an index so far */
} TagTable;

/* The first and the last 8 bytes of the tag p[0:n] as words, zero-filled past a tag shorter than 8 (then all of
 * it is in `head`). Reads up to 8 bytes before p, which a scalar Event's tag always has in the buffer (its record
 * header and the summary's 6 or more bytes of keys and lengths), and shifts them out. */
static inline void tag_words(const uint8_t *p, size_t n, uint64_t *head, uint64_t *tail) {
    if (n >= 8) {
        *head = load_le64(p);
        *tail = load_le64(p + n - 8);
    } else {
        *head = n ? load_le64(p + n - 8) >> (8 * (8 - n)) : 0;
        *tail = 0;
    }
}

static inline uint64_t tag_hash(const uint8_t *p, size_t n, uint64_t head, uint64_t tail) {
    uint64_t h = (head ^ (0x9E3779B97F4A7C15ull * (n + 1))) * 0xBF58476D1CE4E5B9ull;
    for (size_t at = 8; at + 8 < n; at += 8) h = (h ^ (h >> 31) ^ load_le64(p + at)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 29) ^ tail) * 0x94D049BB133111EBull;
    return h ^ (h >> 32);
}

/* Strict UTF-8, as Python's bytes.decode("utf-8") and protobuf's string fields take it: no overlong forms, no
 * surrogates, nothing past U+10FFFF. */
static int utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c < 0xC2) return 0;
        if (c < 0xE0) {
            if (n - i < 2 || (s[i + 1] & 0xC0) != 0x80) return 0;
            i += 2;
            continue;
        }
        if (c < 0xF0) {
            if (n - i < 3) return 0;
            uint8_t c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80) return 0;
            if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0)) return 0;
            i += 3;
            continue;
        }
        if (c < 0xF5) {
            if (n - i < 4) return 0;
            uint8_t c1 = s[i + 1];
            if ((c1 & 0xC0) != 0x80 || (s[i + 2] & 0xC0) != 0x80 || (s[i + 3] & 0xC0) != 0x80) return 0;
            if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90)) return 0;
            i += 4;
            continue;
        }
        return 0;
    }
    return 1;
}

static int tags_grow(TagTable *table) {
    size_t capacity = table->capacity ? 2 * table->capacity : 64;
    TagSlot *slots = calloc(capacity, sizeof(TagSlot));
    if (slots == NULL) return -1;
    for (size_t i = 0; i < table->capacity; i++) {
        TagSlot *old = &table->slots[i];
        if (old->bytes == NULL) continue;
        size_t at = old->hash & (capacity - 1);
        while (slots[at].bytes != NULL) at = (at + 1) & (capacity - 1);
        slots[at] = *old;
    }
    free(table->slots);
    table->slots = slots;
    table->capacity = capacity;
    return 0;
}

/* The slot of the tag `bytes[0:size]` (a scalar Event's, see tag_words), added on first sight; NULL when out of
 * memory. */
static TagSlot *tags_find(TagTable *table, const uint8_t *bytes, uint32_t size) {
    if (2 * (table->used + 1) > table->capacity && tags_grow(table) < 0) return NULL;
    uint64_t head, tail;
    tag_words(bytes, size, &head, &tail);
    uint64_t hash = tag_hash(bytes, size, head, tail);
    size_t slots = table->capacity - 1;
    size_t at = hash & slots;
    for (;;) {
        TagSlot *slot = &table->slots[at];
        if (slot->bytes == NULL) {
            slot->bytes = bytes;
            slot->size = size;
            slot->hash = hash;
            slot->head = head;
            slot->tail = tail;
            slot->index = utf8_valid(bytes, size) ? table->valid++ : -1;
            table->used++;
            return slot;
        }
        if (slot->hash == hash && slot->size == size && slot->head == head && slot->tail == tail &&
            (size <= 16 || memcmp(slot->bytes + 8, bytes + 8, size - 16) == 0))
            return slot;
        at = (at + 1) & slots;
    }
}

/* --- scalar events ---------------------------------------------------------------------------------------- */
static size_t varint_size(uint64_t value) {
    size_t size = 1;
    while (value > 0x7F) {
        value >>= 7;
        size++;
    }
    return size;
}

/* Does `p` hold the minimal varint encoding of `value` in exactly `size` bytes? */
static int is_varint(const uint8_t *p, uint64_t value, size_t size) {
    for (size_t k = 0; k + 1 < size; k++, value >>= 7)
        if (p[k] != (uint8_t)((value & 0x7F) | 0x80)) return 0;
    return p[size - 1] == value;
}

/* The length L such that a 1-byte key, a minimal varint of L and L bytes take `total` bytes; -1 if none (with
 * varints of 1 to 3 bytes: L < 2^21, far above MAX_SCALAR). Per size s, L = total - 1 - s needs exactly s bytes. */
static inline int64_t field_with_length(int64_t total) {
    if (total >= 2 && total <= 129) return total - 2;          /* L in [0, 127]: 1 byte */
    if (total >= 131 && total <= 16386) return total - 3;      /* L in [128, 16383]: 2 bytes */
    if (total >= 16388 && total <= 2097155) return total - 4;  /* L in [16384, 2^21 - 1]: 3 bytes */
    return -1;
}

typedef struct {
    uint64_t step;
    double wall_time;
    double value;
    size_t tag_at; /* within the data */
    uint32_t tag_size;
} Scalar;

/* Is `d[0:length]` exactly [09 wall_time:f64] [10 step:varint] 2a L1 { 0a L2 { 0a L3 tag 15 value:f32 } } with
 * minimal length varints, a step varint of 1 to 10 bytes whose 10th byte is 0 or 1, and 11 <= length <= 4096?
 * (The same rule as the numpy path's layouts; the tag's UTF-8 is checked by the caller.) */
static int scalar_event(const uint8_t *d, size_t length, Scalar *out) {
    if (length < MIN_SCALAR || length > MAX_SCALAR) return 0;
    size_t at = d[0] == 0x09 ? 9 : 0;
    uint64_t step = 0;
    if (d[at] == 0x10) {
        size_t size = 0;
        size_t limit = length - at - 1 < 10 ? length - at - 1 : 10;
        while (size < limit && d[at + 1 + size] >= 0x80) size++;
        if (size == limit) return 0; /* no varint end within 10 bytes (or before the end) */
        size++;
        if (size == 10 && d[at + 10] >= 2) return 0; /* bits past 64: left to protobuf */
        for (size_t k = 0; k < size; k++) step |= (uint64_t)(d[at + 1 + k] & 0x7F) << (7 * k);
        at += 1 + size;
    }
    int64_t rest = (int64_t)length - (int64_t)at;
    int64_t summary = field_with_length(rest);
    int64_t value = summary < 0 ? -1 : field_with_length(summary);
    int64_t tag = value < 0 ? -1 : field_with_length(value - 5);
    if (tag < 0) return 0;
    size_t s1 = varint_size((uint64_t)summary), s2 = varint_size((uint64_t)value), s3 = varint_size((uint64_t)tag);
    size_t head = 3 + s1 + s2 + s3; /* 2a L1 0a L2 0a L3 */
    /* at + head + tag + 5 == length by construction */
    const uint8_t *h = d + at;
    if (h[0] != 0x2A || !is_varint(h + 1, (uint64_t)summary, s1)) return 0;
    if (h[1 + s1] != 0x0A || !is_varint(h + 2 + s1, (uint64_t)value, s2)) return 0;
    if (h[2 + s1 + s2] != 0x0A || !is_varint(h + 3 + s1 + s2, (uint64_t)tag, s3)) return 0;
    if (d[length - 5] != 0x15) return 0;
    if (d[0] == 0x09) {
        uint64_t bits = load_le64(d + 1);
        memcpy(&out->wall_time, &bits, 8);
    } else {
        out->wall_time = 0.0;
    }
    uint32_t bits32 = load_le32(d + length - 4);
    float f;
    memcpy(&f, &bits32, 4);
    out->value = (double)f; /* a signalling NaN turns quiet, as protobuf's C cast does */
    out->step = step;
    out->tag_at = at + head;
    out->tag_size = (uint32_t)tag;
    return 1;
}

/* --- the loop ----------------------------------------------------------------------------------------------- */
typedef struct {
    uint64_t offset;
    int reason;
} Corrupt;

typedef struct {
    /* input */
    const uint8_t *b;
    size_t n;
    uint64_t available;
    int check_crc;
    /* outputs, sized for the most records the buffer can hold */
    int32_t *tag_index;
    int64_t *step;
    double *wall_time;
    double *value;
    int64_t *scalar_order;
    int64_t *other_offsets;
    int64_t *other_lengths;
    int64_t *other_order;
    int64_t *tag_bounds; /* malloc'd: where each tag's group of scalars starts, and the end */
    size_t scalars, others;
    Corrupt *corrupt;
    size_t corrupt_count, corrupt_capacity;
    TagTable tags;
    size_t end;
    int failed; /* out of memory */
} Parse;

static int add_corrupt(Parse *p, uint64_t offset, int reason) {
    if (p->corrupt_count == p->corrupt_capacity) {
        size_t capacity = p->corrupt_capacity ? 2 * p->corrupt_capacity : 16;
        Corrupt *grown = realloc(p->corrupt, capacity * sizeof(Corrupt));
        if (grown == NULL) return -1;
        p->corrupt = grown;
        p->corrupt_capacity = capacity;
    }
    p->corrupt[p->corrupt_count].offset = offset;
    p->corrupt[p->corrupt_count].reason = reason;
    p->corrupt_count++;
    return 0;
}

static void permute(int64_t *column, const int64_t *dest, int64_t *temp, size_t n) {
    memcpy(temp, column, n * sizeof(int64_t));
    for (size_t i = 0; i < n; i++) column[dest[i]] = temp[i];
}

/* The scalars, found in record order, grouped by tag in place (a counting sort): each tag's scalars together and
 * in record order, the tags in the order of their index, which is the order they first appear in. What the
 * caller appends, series by series, as slices. */
static int group_by_tag(Parse *p) {
    size_t tags = (size_t)p->tags.valid, n = p->scalars;
    p->tag_bounds = calloc(tags + 1, sizeof(int64_t));
    if (p->tag_bounds == NULL) return -1;
    int sorted = 1;
    for (size_t i = 0; i < n; i++) {
        p->tag_bounds[p->tag_index[i] + 1]++;
        sorted &= i == 0 || p->tag_index[i] >= p->tag_index[i - 1];
    }
    for (size_t t = 0; t < tags; t++) p->tag_bounds[t + 1] += p->tag_bounds[t];
    if (sorted) return 0; /* one tag, or tags that came one after another */
    int64_t *next = malloc(tags * sizeof(int64_t)), *dest = malloc(n * sizeof(int64_t));
    int64_t *temp = malloc(n * sizeof(int64_t));
    if (next == NULL || dest == NULL || temp == NULL) {
        free(next);
        free(dest);
        free(temp);
        return -1;
    }
    memcpy(next, p->tag_bounds, tags * sizeof(int64_t));
    for (size_t i = 0; i < n; i++) dest[i] = next[p->tag_index[i]]++;
    permute(p->step, dest, temp, n);
    permute((int64_t *)p->wall_time, dest, temp, n); /* moved as bits */
    permute((int64_t *)p->value, dest, temp, n);
    permute(p->scalar_order, dest, temp, n);
    for (size_t t = 0; t < tags; t++)
        for (int64_t i = p->tag_bounds[t]; i < p->tag_bounds[t + 1]; i++) p->tag_index[i] = (int32_t)t;
    free(next);
    free(dest);
    free(temp);
    return 0;
}

static void run_parse(Parse *p) {
    const uint8_t *b = p->b;
    size_t n = p->n, pos = 0, resume;
    int64_t record = 0;
    for (;;) {
        if (n - pos < HEADER_SIZE) break; /* a header cut short */
        if (!header_ok(b, pos)) {
            if (find_resume(b, n, p->available, pos + 1, 0, &resume) != RESUME_FOUND) break;
            if (add_corrupt(p, pos, REASON_LENGTH_CRC) < 0) goto oom;
            pos = resume;
            continue;
        }
        uint64_t length = load_le64(b + pos);
        if (!record_fits(pos, length, n)) {
            if (record_fits(pos, length, p->available)) break; /* longer than the buffer: the caller offers more */
            if (find_resume(b, n, p->available, pos + 1, 1, &resume) != RESUME_FOUND) break;
            if (add_corrupt(p, pos, REASON_PAST_END) < 0) goto oom;
            pos = resume;
            continue;
        }
        size_t data = pos + HEADER_SIZE, size = (size_t)length;
        if (p->check_crc && masked_crc32c(b + data, size) != load_le32(b + data + size)) {
            if (add_corrupt(p, pos, REASON_DATA_CRC) < 0) goto oom;
            pos = data + size + 4;
            continue;
        }
        Scalar scalar;
        TagSlot *slot = NULL;
        if (scalar_event(b + data, size, &scalar)) {
            slot = tags_find(&p->tags, b + data + scalar.tag_at, scalar.tag_size);
            if (slot == NULL) goto oom;
        }
        if (slot != NULL && slot->index >= 0) {
            size_t i = p->scalars++;
            p->tag_index[i] = slot->index;
            p->step[i] = (int64_t)scalar.step;
            p->wall_time[i] = scalar.wall_time;
            p->value[i] = scalar.value;
            p->scalar_order[i] = record;
        } else {
            size_t i = p->others++;
            p->other_offsets[i] = (int64_t)data;
            p->other_lengths[i] = (int64_t)size;
            p->other_order[i] = record;
        }
        record++;
        pos = data + size + 4;
    }
    p->end = pos;
    if (group_by_tag(p) < 0) goto oom;
    return;
oom:
    p->failed = 1;
}

/* A bytearray of `size` bytes (contents undefined) and a pointer to them. */
static PyObject *new_column(size_t count, size_t item, void **data) {
    PyObject *column = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(count * item));
    if (column != NULL) *data = PyByteArray_AS_STRING(column);
    return column;
}

static int shrink_column(PyObject *column, size_t count, size_t item) {
    return PyByteArray_Resize(column, (Py_ssize_t)(count * item));
}

static int parse_available(PyObject *object, size_t n, uint64_t *out) {
    if (object == Py_None) {
        *out = n;
        return 0;
    }
    unsigned long long value = PyLong_AsUnsignedLongLong(object);
    if (value == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "available must be None or an integer from len(buffer) to 2**64 - 1");
        return -1;
    }
    if (value < n) {
        PyErr_Format(PyExc_ValueError, "available must be at least len(buffer) = %zu, got %llu", n, value);
        return -1;
    }
    *out = value;
    return 0;
}

static PyObject *core_parse(PyObject *self, PyObject *args) {
    Py_buffer view;
    int check_crc;
    PyObject *available_object;
    if (!PyArg_ParseTuple(args, "y*pO:parse", &view, &check_crc, &available_object)) return NULL;
    PyObject *result = NULL, *tags = NULL, *corrupt = NULL, *bounds = NULL;
    PyObject *columns[8] = {NULL};
    Parse p;
    memset(&p, 0, sizeof(p));
    p.b = view.buf;
    p.n = (size_t)view.len;
    p.check_crc = check_crc;
    if (parse_available(available_object, p.n, &p.available) < 0) goto done;

    size_t most_records = p.n / FRAMING + 1, most_scalars = p.n / (FRAMING + MIN_SCALAR) + 1;
    /* tag_index, step, wall_time, value, scalar_order | other_offsets, other_lengths, other_order */
    static const size_t items[8] = {4, 8, 8, 8, 8, 8, 8, 8};
    void *pointers[8];
    for (int k = 0; k < 8; k++) {
        columns[k] = new_column(k < 5 ? most_scalars : most_records, items[k], &pointers[k]);
        if (columns[k] == NULL) goto done;
    }
    p.tag_index = pointers[0];
    p.step = pointers[1];
    p.wall_time = pointers[2];
    p.value = pointers[3];
    p.scalar_order = pointers[4];
    p.other_offsets = pointers[5];
    p.other_lengths = pointers[6];
    p.other_order = pointers[7];

    Py_BEGIN_ALLOW_THREADS
    run_parse(&p);
    Py_END_ALLOW_THREADS

    if (p.failed) {
        PyErr_NoMemory();
        goto done;
    }
    for (int k = 0; k < 8; k++)
        if (shrink_column(columns[k], k < 5 ? p.scalars : p.others, items[k]) < 0) goto done;
    bounds = PyByteArray_FromStringAndSize((const char *)p.tag_bounds,
                                           (Py_ssize_t)(((size_t)p.tags.valid + 1) * sizeof(int64_t)));
    if (bounds == NULL) goto done;

    tags = PyList_New(p.tags.valid);
    if (tags == NULL) goto done;
    for (size_t i = 0; i < p.tags.capacity; i++) {
        TagSlot *slot = &p.tags.slots[i];
        if (slot->bytes == NULL || slot->index < 0) continue;
        PyObject *tag = PyUnicode_DecodeUTF8((const char *)slot->bytes, slot->size, "strict");
        if (tag == NULL) goto done;
        PyList_SET_ITEM(tags, slot->index, tag);
    }
    corrupt = PyList_New((Py_ssize_t)p.corrupt_count);
    if (corrupt == NULL) goto done;
    for (size_t i = 0; i < p.corrupt_count; i++) {
        PyObject *entry = Py_BuildValue("(KO)", (unsigned long long)p.corrupt[i].offset,
                                        reason_strings[p.corrupt[i].reason]);
        if (entry == NULL) goto done;
        PyList_SET_ITEM(corrupt, (Py_ssize_t)i, entry);
    }
    result = Py_BuildValue("(nOOOOOOOOOOO)", (Py_ssize_t)p.end, tags, corrupt, columns[0], columns[1], columns[2],
                           columns[3], columns[4], columns[5], columns[6], columns[7], bounds);
done:
    for (int k = 0; k < 8; k++) Py_XDECREF(columns[k]);
    Py_XDECREF(tags);
    Py_XDECREF(corrupt);
    Py_XDECREF(bounds);
    free(p.tag_bounds);
    free(p.tags.slots);
    free(p.corrupt);
    PyBuffer_Release(&view);
    return result;
}

static PyObject *core_resume_point(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t first;
    PyObject *available_object;
    int intact;
    if (!PyArg_ParseTuple(args, "y*nOp:resume_point", &view, &first, &available_object, &intact)) return NULL;
    PyObject *result = NULL;
    uint64_t available;
    if (first < 0) {
        PyErr_SetString(PyExc_ValueError, "first must not be negative");
    } else if (parse_available(available_object, (size_t)view.len, &available) == 0) {
        size_t at = 0;
        int status;
        Py_BEGIN_ALLOW_THREADS
        status = find_resume(view.buf, (size_t)view.len, available, (size_t)first, intact, &at);
        Py_END_ALLOW_THREADS
        result = Py_BuildValue("(in)", status, (Py_ssize_t)at);
    }
    PyBuffer_Release(&view);
    return result;
}

static PyObject *core_masked_crc32c(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*:masked_crc32c", &view)) return NULL;
    uint32_t crc;
    Py_BEGIN_ALLOW_THREADS
    crc = masked_crc32c(view.buf, (size_t)view.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromUnsignedLong(crc);
}

static PyMethodDef methods[] = {
    {"parse", core_parse, METH_VARARGS,
     "parse(buffer, check_crc, available) -> (end, tags, corrupt, tag_index, step, wall_time, value, scalar_order, "
     "other_offsets, other_lengths, other_order, tag_bounds): the columns as bytearrays, the scalars grouped by tag"},
    {"resume_point", core_resume_point, METH_VARARGS,
     "resume_point(buffer, first, available, intact) -> (status, position): 0 found, 1 none, 2 undecided"},
    {"masked_crc32c", core_masked_crc32c, METH_VARARGS, "masked_crc32c(buffer) -> int: TFRecord's masked CRC32C"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_core",
    .m_doc = "ridgeline's compiled record loop (see ridgeline.ingest.fastpath).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    crc32c_init();
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    for (int k = 0; k < 3; k++) {
        reason_strings[k] = PyUnicode_InternFromString(REASONS[k]);
        if (reason_strings[k] == NULL) {
            Py_DECREF(m);
            return NULL;
        }
    }
    if (PyModule_AddIntConstant(m, "HARDWARE_CRC", crc32c_hardware != 0) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
