/* ridgeline.profile._scan: the trace events' fields the views need, read straight from a batch's JSON bytes.
 *
 * scan(body, count) walks `body`, a comma-separated run of `count` JSON objects (the events of one batch, as
 * ridgeline/profile/split.py cuts them), with the GIL released, and returns the fields parse.py reads, as columns:
 *
 *   ids:    bytes of int32[8][count], local ids of the raw JSON text of ph, name, cat, pid, tid and of args'
 *           "Input Dims", "grid", "block" (-1: absent). Ids number each table's distinct texts in the order met.
 *   tables: 8 lists of bytes, the distinct raw texts (a string's quotes and escapes included) of each field:
 *           the caller decodes each once with orjson, so every value means what orjson says it means.
 *   floats: bytes of float64[10][count]: ts (NaN: absent), dur (0: absent), and args' "registers per thread",
 *           "shared memory", "est. achieved occupancy %", "blocks per SM", "warps per SM", "Total Allocated",
 *           "Total Reserved", "Bytes" (NaN: absent).
 *   ints:   bytes of int64[4][count]: args' "External id", "correlation", "Device Type", "Device Id" (-1: absent).
 *
 * It returns None for anything it does not vouch for, so the caller parses that batch with orjson instead: bytes
 * that are not exactly `count` objects separated by commas, anything orjson would reject (bad escapes, lone
 * surrogates as \u escapes are declined whole, invalid UTF-8, control characters in strings, infinite numbers,
 * nesting deeper than 128) and values whose meaning depends on their neighbours in parse.py's numpy conversions:
 * a ts, dur, kernel or memory field that is not a number, an id or device field that is not an integer of at most
 * 18 digits, an "args" that is not an object, a key holding an escape. Every read is within [0, n).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { T_PH, T_NAME, T_CAT, T_PID, T_TID, T_DIMS, T_GRID, T_BLOCK, TABLES };
enum { F_TS, F_DUR, F_REGISTERS, F_SHARED, F_OCCUPANCY, F_BLOCKS_SM, F_WARPS_SM, F_ALLOCATED, F_RESERVED, F_BYTES,
       FLOATS };
enum { I_EXTERNAL, I_CORRELATION, I_DEVICE_TYPE, I_DEVICE_ID, INTS };
#define MAX_DEPTH 128

typedef struct {
    size_t *start, *length; /* entries, in the order met */
    int32_t *slots;         /* open addressing: entry + 1, 0 empty */
    uint64_t *hashes;
    size_t count, capacity, slot_count;
} Table;

typedef struct {
    const uint8_t *b;
    size_t n, p;
} Cursor;

static uint64_t hash_bytes(const uint8_t *s, size_t n) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
    return h;
}

static int table_grow(Table *t) {
    size_t slots = t->slot_count ? t->slot_count * 2 : 64;
    int32_t *fresh = calloc(slots, sizeof(int32_t));
    if (!fresh) return -1;
    for (size_t i = 0; i < t->slot_count; i++) {
        if (!t->slots[i]) continue;
        size_t at = t->hashes[t->slots[i] - 1] & (slots - 1);
        while (fresh[at]) at = (at + 1) & (slots - 1);
        fresh[at] = t->slots[i];
    }
    free(t->slots);
    t->slots = fresh;
    t->slot_count = slots;
    return 0;
}

/* The local id of body[start, start + length), added when new; -1 on memory exhaustion. */
static int32_t table_intern(Table *t, const uint8_t *b, size_t start, size_t length) {
    if ((t->count + 1) * 2 > t->slot_count && table_grow(t) < 0) return -1;
    uint64_t h = hash_bytes(b + start, length);
    size_t at = h & (t->slot_count - 1);
    while (t->slots[at]) {
        size_t e = (size_t)t->slots[at] - 1;
        if (t->hashes[e] == h && t->length[e] == length && memcmp(b + t->start[e], b + start, length) == 0)
            return (int32_t)e;
        at = (at + 1) & (t->slot_count - 1);
    }
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 32;
        size_t *s = realloc(t->start, capacity * sizeof(size_t));
        if (!s) return -1;
        t->start = s;
        size_t *l = realloc(t->length, capacity * sizeof(size_t));
        if (!l) return -1;
        t->length = l;
        uint64_t *hs = realloc(t->hashes, capacity * sizeof(uint64_t));
        if (!hs) return -1;
        t->hashes = hs;
        t->capacity = capacity;
    }
    if (t->count >= INT32_MAX) return -1;
    size_t e = t->count++;
    t->start[e] = start;
    t->length[e] = length;
    t->hashes[e] = h;
    t->slots[at] = (int32_t)(e + 1);
    return (int32_t)e;
}

static void table_free(Table *t) {
    free(t->start);
    free(t->length);
    free(t->slots);
    free(t->hashes);
}

static inline void skip_ws(Cursor *c) {
    while (c->p < c->n) {
        uint8_t ch = c->b[c->p];
        if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') return;
        c->p++;
    }
}

/* One UTF-8 sequence at c->p whose lead byte is >= 0x80 (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
static int skip_utf8(Cursor *c) {
    const uint8_t *b = c->b;
    size_t p = c->p, left = c->n - c->p;
    uint8_t lead = b[p];
    size_t extra;
    uint8_t low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) extra = 1;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        extra = 2;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        extra = 3;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else return -1;
    if (left <= extra) return -1;
    if (b[p + 1] < low || b[p + 1] > high) return -1;
    for (size_t i = 2; i <= extra; i++)
        if (b[p + i] < 0x80 || b[p + i] > 0xBF) return -1;
    c->p = p + 1 + extra;
    return 0;
}

/* A string at c->p (its opening quote); *escaped tells whether it held a backslash. */
static int skip_string(Cursor *c, int *escaped) {
    *escaped = 0;
    c->p++;
    while (c->p < c->n) {
        uint8_t ch = c->b[c->p];
        if (ch == '"') {
            c->p++;
            return 0;
        }
        if (ch == '\\') {
            if (c->p + 1 >= c->n) return -1;
            uint8_t e = c->b[c->p + 1];
            /* \u escapes are declined (orjson's surrogate rules are its own); the others are plain */
            if (!(e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't'))
                return -1;
            *escaped = 1;
            c->p += 2;
        } else if (ch < 0x20) {
            return -1;
        } else if (ch >= 0x80) {
            if (skip_utf8(c) < 0) return -1;
        } else {
            c->p++;
        }
    }
    return -1;
}

#define NUMBER_INT 1
#define NUMBER_FLOAT 2

/* A JSON number at c->p: its value as a double, and as an int64 when it is an integer of at most 18 digits
 * (*kind NUMBER_INT; an integer of more digits is declined). Floats go through strtod (correctly rounded, as
 * orjson); an infinite one is declined, as orjson declines it. */
static int read_number(Cursor *c, int *kind, double *value, int64_t *integer) {
    const uint8_t *b = c->b;
    size_t p = c->p, first = c->p;
    int negative = 0, is_float = 0;
    if (p < c->n && b[p] == '-') {
        negative = 1;
        p++;
    }
    if (p >= c->n || b[p] < '0' || b[p] > '9') return -1;
    size_t digits_start = p;
    if (b[p] == '0') p++;
    else
        while (p < c->n && b[p] >= '0' && b[p] <= '9') p++;
    size_t int_digits = p - digits_start;
    if (p < c->n && b[p] == '.') {
        is_float = 1;
        p++;
        size_t f = p;
        while (p < c->n && b[p] >= '0' && b[p] <= '9') p++;
        if (p == f) return -1;
    }
    if (p < c->n && (b[p] == 'e' || b[p] == 'E')) {
        is_float = 1;
        p++;
        if (p < c->n && (b[p] == '+' || b[p] == '-')) p++;
        size_t f = p;
        while (p < c->n && b[p] >= '0' && b[p] <= '9') p++;
        if (p == f) return -1;
    }
    c->p = p;
    if (!is_float) {
        if (int_digits > 18) return -1;
        int64_t v = 0;
        for (size_t i = digits_start; i < p; i++) v = v * 10 + (b[i] - '0');
        *integer = negative ? -v : v;
        *value = (double)*integer;
        *kind = NUMBER_INT;
        return 0;
    }
    char text[64];
    size_t length = p - first;
    if (length >= sizeof text) return -1;
    memcpy(text, b + first, length);
    text[length] = 0;
    *value = strtod(text, NULL);
    if (isinf(*value)) return -1;
    *kind = NUMBER_FLOAT;
    return 0;
}

static int skip_value(Cursor *c, int depth);

static int skip_container(Cursor *c, int depth, uint8_t close) {
    if (depth >= MAX_DEPTH) return -1;
    c->p++;
    skip_ws(c);
    if (c->p < c->n && c->b[c->p] == close) {
        c->p++;
        return 0;
    }
    while (1) {
        if (close == '}') {
            int escaped;
            if (c->p >= c->n || c->b[c->p] != '"' || skip_string(c, &escaped) < 0) return -1;
            skip_ws(c);
            if (c->p >= c->n || c->b[c->p] != ':') return -1;
            c->p++;
            skip_ws(c);
        }
        if (skip_value(c, depth + 1) < 0) return -1;
        skip_ws(c);
        if (c->p >= c->n) return -1;
        if (c->b[c->p] == ',') {
            c->p++;
            skip_ws(c);
            continue;
        }
        if (c->b[c->p] == close) {
            c->p++;
            return 0;
        }
        return -1;
    }
}

static int literal(Cursor *c, const char *word, size_t length) {
    if (c->n - c->p < length || memcmp(c->b + c->p, word, length) != 0) return -1;
    c->p += length;
    return 0;
}

static int skip_value(Cursor *c, int depth) {
    if (c->p >= c->n) return -1;
    uint8_t ch = c->b[c->p];
    int escaped, kind;
    double value;
    int64_t integer;
    switch (ch) {
        case '"': return skip_string(c, &escaped);
        case '{': return skip_container(c, depth, '}');
        case '[': return skip_container(c, depth, ']');
        case 't': return literal(c, "true", 4);
        case 'f': return literal(c, "false", 5);
        case 'n': return literal(c, "null", 4);
        default: return read_number(c, &kind, &value, &integer);
    }
}

/* A key at c->p, matched against `names` (each NUL-terminated): its index, or -2 for another key, -1 bad. */
static int read_key(Cursor *c, const char *const *names, int count) {
    int escaped;
    size_t start = c->p + 1;
    if (c->p >= c->n || c->b[c->p] != '"' || skip_string(c, &escaped) < 0 || escaped) return -1;
    size_t length = c->p - 1 - start;
    int found = -2;
    for (int i = 0; i < count; i++)
        if (strlen(names[i]) == length && memcmp(c->b + start, names[i], length) == 0) found = i;
    skip_ws(c);
    if (c->p >= c->n || c->b[c->p] != ':') return -1;
    c->p++;
    skip_ws(c);
    return found;
}

static const char *const EVENT_KEYS[] = {"ph", "name", "cat", "pid", "tid", "ts", "dur", "args"};
static const char *const ARG_KEYS[] = {"Input Dims",
                                       "grid",
                                       "block",
                                       "registers per thread",
                                       "shared memory",
                                       "est. achieved occupancy %",
                                       "blocks per SM",
                                       "warps per SM",
                                       "External id",
                                       "correlation",
                                       "Total Allocated",
                                       "Total Reserved",
                                       "Bytes",
                                       "Device Type",
                                       "Device Id"};

typedef struct {
    Table tables[TABLES];
    int32_t *ids;   /* [TABLES][count] */
    double *floats; /* [FLOATS][count] */
    int64_t *ints;  /* [INTS][count] */
    size_t count;
} Out;

/* The raw text of the value at c->p, interned into table t as event e's id. */
static int intern_value(Cursor *c, Out *o, int t, size_t e) {
    size_t start = c->p;
    if (skip_value(c, 1) < 0) return -1;
    int32_t id = table_intern(&o->tables[t], c->b, start, c->p - start);
    if (id < 0) return -1;
    o->ids[(size_t)t * o->count + e] = id;
    return 0;
}

static int number_field(Cursor *c, double *out) {
    int kind;
    int64_t integer;
    if (c->p >= c->n || !(c->b[c->p] == '-' || (c->b[c->p] >= '0' && c->b[c->p] <= '9'))) return -1;
    return read_number(c, &kind, out, &integer);
}

static int integer_field(Cursor *c, int64_t *out) {
    int kind;
    double value;
    if (c->p >= c->n || !(c->b[c->p] == '-' || (c->b[c->p] >= '0' && c->b[c->p] <= '9'))) return -1;
    if (read_number(c, &kind, &value, out) < 0 || kind != NUMBER_INT) return -1;
    return 0;
}

static int read_args(Cursor *c, Out *o, size_t e) {
    size_t count = o->count;
    /* a repeated "args" replaces the earlier one, as in orjson */
    o->ids[T_DIMS * count + e] = o->ids[T_GRID * count + e] = o->ids[T_BLOCK * count + e] = -1;
    for (int f = F_REGISTERS; f < FLOATS; f++) o->floats[(size_t)f * count + e] = NAN;
    for (int i = 0; i < INTS; i++) o->ints[(size_t)i * count + e] = -1;
    if (c->p >= c->n || c->b[c->p] != '{') return -1;
    c->p++;
    skip_ws(c);
    if (c->p < c->n && c->b[c->p] == '}') {
        c->p++;
        return 0;
    }
    while (1) {
        int key = read_key(c, ARG_KEYS, 15);
        int ok;
        if (key == -1) return -1;
        switch (key) {
            case 0: ok = intern_value(c, o, T_DIMS, e); break;
            case 1: ok = intern_value(c, o, T_GRID, e); break;
            case 2: ok = intern_value(c, o, T_BLOCK, e); break;
            case 3: case 4: case 5: case 6: case 7:
                ok = number_field(c, &o->floats[(size_t)(F_REGISTERS + key - 3) * count + e]);
                break;
            case 8: ok = integer_field(c, &o->ints[I_EXTERNAL * count + e]); break;
            case 9: ok = integer_field(c, &o->ints[I_CORRELATION * count + e]); break;
            case 10: case 11: case 12:
                ok = number_field(c, &o->floats[(size_t)(F_ALLOCATED + key - 10) * count + e]);
                break;
            case 13: ok = integer_field(c, &o->ints[I_DEVICE_TYPE * count + e]); break;
            case 14: ok = integer_field(c, &o->ints[I_DEVICE_ID * count + e]); break;
            default: ok = skip_value(c, 2);
        }
        if (ok < 0) return -1;
        skip_ws(c);
        if (c->p >= c->n) return -1;
        if (c->b[c->p] == ',') {
            c->p++;
            skip_ws(c);
            continue;
        }
        if (c->b[c->p] == '}') {
            c->p++;
            return 0;
        }
        return -1;
    }
}

static int read_event(Cursor *c, Out *o, size_t e) {
    size_t count = o->count;
    for (int t = 0; t < TABLES; t++) o->ids[(size_t)t * count + e] = -1;
    o->floats[F_TS * count + e] = NAN;
    o->floats[F_DUR * count + e] = 0.0;
    for (int f = F_REGISTERS; f < FLOATS; f++) o->floats[(size_t)f * count + e] = NAN;
    for (int i = 0; i < INTS; i++) o->ints[(size_t)i * count + e] = -1;
    if (c->p >= c->n || c->b[c->p] != '{') return -1;
    c->p++;
    skip_ws(c);
    if (c->p < c->n && c->b[c->p] == '}') {
        c->p++;
        return 0;
    }
    while (1) {
        int key = read_key(c, EVENT_KEYS, 8);
        int ok;
        if (key == -1) return -1;
        if (key >= 0 && key <= 4) ok = intern_value(c, o, key, e); /* ph name cat pid tid: T_PH..T_TID */
        else if (key == 5) ok = number_field(c, &o->floats[F_TS * count + e]);
        else if (key == 6) ok = number_field(c, &o->floats[F_DUR * count + e]);
        else if (key == 7) ok = read_args(c, o, e);
        else ok = skip_value(c, 1);
        if (ok < 0) return -1;
        skip_ws(c);
        if (c->p >= c->n) return -1;
        if (c->b[c->p] == ',') {
            c->p++;
            skip_ws(c);
            continue;
        }
        if (c->b[c->p] == '}') {
            c->p++;
            return 0;
        }
        return -1;
    }
}

static int read_all(Cursor *c, Out *o) {
    skip_ws(c);
    for (size_t e = 0; e < o->count; e++) {
        if (e) {
            if (c->p >= c->n || c->b[c->p] != ',') return -1;
            c->p++;
            skip_ws(c);
        }
        if (read_event(c, o, e) < 0) return -1;
        skip_ws(c);
    }
    return c->p == c->n ? 0 : -1;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "y*n", &view, &count)) return NULL;
    if (count < 0 || count > (Py_ssize_t)(PY_SSIZE_T_MAX / (8 * FLOATS))) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "count out of range");
        return NULL;
    }
    PyObject *ids = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int32_t) * TABLES * count);
    PyObject *floats = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(double) * FLOATS * count);
    PyObject *ints = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)sizeof(int64_t) * INTS * count);
    PyObject *result = NULL;
    Out o;
    memset(&o, 0, sizeof o);
    if (!ids || !floats || !ints) goto done;
    o.ids = (int32_t *)PyBytes_AS_STRING(ids);
    o.floats = (double *)PyBytes_AS_STRING(floats);
    o.ints = (int64_t *)PyBytes_AS_STRING(ints);
    o.count = (size_t)count;
    Cursor c = {(const uint8_t *)view.buf, (size_t)view.len, 0};
    int ok;
    Py_BEGIN_ALLOW_THREADS;
    ok = read_all(&c, &o);
    Py_END_ALLOW_THREADS;
    if (ok < 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    PyObject *tables = PyTuple_New(TABLES);
    if (!tables) goto done;
    for (int t = 0; t < TABLES; t++) {
        Table *table = &o.tables[t];
        PyObject *texts = PyList_New((Py_ssize_t)table->count);
        if (!texts) {
            Py_DECREF(tables);
            goto done;
        }
        PyTuple_SET_ITEM(tables, t, texts);
        for (size_t i = 0; i < table->count; i++) {
            PyObject *text = PyBytes_FromStringAndSize((const char *)c.b + table->start[i], (Py_ssize_t)table->length[i]);
            if (!text) {
                Py_DECREF(tables);
                goto done;
            }
            PyList_SET_ITEM(texts, (Py_ssize_t)i, text);
        }
    }
    result = Py_BuildValue("(NOOO)", tables, ids, floats, ints);
done:
    for (int t = 0; t < TABLES; t++) table_free(&o.tables[t]);
    Py_XDECREF(ids);
    Py_XDECREF(floats);
    Py_XDECREF(ints);
    PyBuffer_Release(&view);
    return result;
}

/* split.py's scan() over buffer[start:]: the event-ending commas (absolute positions) and where the list closes
 * (-1: not in the buffer). A quote counts unless an odd run of backslashes precedes it, inside strings or not,
 * exactly as the numpy version counts it, so both cut any bytes at the same places. */
static PyObject *bounds(PyObject *self, PyObject *args) {
    Py_buffer view;
    Py_ssize_t start;
    if (!PyArg_ParseTuple(args, "y*n", &view, &start)) return NULL;
    if (start < 0 || start > view.len) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "start out of range");
        return NULL;
    }
    const uint8_t *b = (const uint8_t *)view.buf;
    size_t n = (size_t)view.len, capacity = 1024, count = 0;
    int64_t *commas = malloc(capacity * sizeof(int64_t));
    Py_ssize_t end = -1;
    int failed = 0;
    if (!commas) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS;
    int64_t depth = 0;
    size_t backslashes = 0;
    int in_string = 0;
    for (size_t p = (size_t)start; p < n; p++) {
        uint8_t ch = b[p];
        if (ch == '\\') {
            backslashes++;
            continue;
        }
        if (ch == '"') {
            if (!(backslashes & 1)) in_string = !in_string;
        } else if (!in_string) {
            if (ch == '{' || ch == '[') depth++;
            else if (ch == '}' || ch == ']') {
                if (--depth < 0) {
                    end = (Py_ssize_t)p;
                    break;
                }
            } else if (ch == ',' && depth == 0) {
                if (count == capacity) {
                    int64_t *grown = realloc(commas, capacity * 2 * sizeof(int64_t));
                    if (!grown) {
                        failed = 1;
                        break;
                    }
                    commas = grown;
                    capacity *= 2;
                }
                commas[count++] = (int64_t)p;
            }
        }
        backslashes = 0;
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    if (failed) {
        free(commas);
        return PyErr_NoMemory();
    }
    PyObject *found = PyBytes_FromStringAndSize((const char *)commas, (Py_ssize_t)(count * sizeof(int64_t)));
    free(commas);
    if (!found) return NULL;
    return Py_BuildValue("(Nn)", found, end);
}

/* parse.py's nesting(): each span's enclosing span on its lane and its depth, spans sorted by (lane, ts, -dur). */
static PyObject *nesting(PyObject *self, PyObject *args) {
    Py_buffer lane_view, ts_view, dur_view;
    if (!PyArg_ParseTuple(args, "y*y*y*", &lane_view, &ts_view, &dur_view)) return NULL;
    size_t count = (size_t)ts_view.len / sizeof(double);
    PyObject *parent = NULL, *depth = NULL, *result = NULL;
    if ((size_t)lane_view.len != count * sizeof(int64_t) || (size_t)dur_view.len != count * sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "lane (int64), ts and dur (float64) must have one length");
        goto done;
    }
    parent = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * sizeof(int64_t)));
    depth = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(count * sizeof(int32_t)));
    size_t *stack = malloc((count ? count : 1) * sizeof(size_t));
    double *ends = malloc((count ? count : 1) * sizeof(double));
    if (!parent || !depth || !stack || !ends) {
        free(stack);
        free(ends);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    const int64_t *lane = lane_view.buf;
    const double *ts = ts_view.buf, *dur = dur_view.buf;
    int64_t *parents = (int64_t *)PyBytes_AS_STRING(parent);
    int32_t *depths = (int32_t *)PyBytes_AS_STRING(depth);
    Py_BEGIN_ALLOW_THREADS;
    size_t open = 0;
    for (size_t i = 0; i < count; i++) {
        if (i == 0 || lane[i] != lane[i - 1]) open = 0;
        while (open && ends[open - 1] <= ts[i]) open--;
        parents[i] = open ? (int64_t)stack[open - 1] : -1;
        depths[i] = (int32_t)open;
        stack[open] = i;
        ends[open] = ts[i] + dur[i];
        open++;
    }
    Py_END_ALLOW_THREADS;
    free(stack);
    free(ends);
    result = Py_BuildValue("(OO)", parent, depth);
done:
    Py_XDECREF(parent);
    Py_XDECREF(depth);
    PyBuffer_Release(&lane_view);
    PyBuffer_Release(&ts_view);
    PyBuffer_Release(&dur_view);
    return result;
}

/* overview.py's breakdown() as one sweep: `windows` (float64 starts, sorted, and ends) and up to 8 categories, each
 * the sorted boundaries s0 e0 s1 e1 ... of disjoint intervals (s_i <= e_i < s_i+1): for each window, the time of
 * each category (the first that covers a moment takes it) and of none (the last column). A moment b is covered by
 * a category when an odd number of its boundaries are <= b, so the merge needs no sort. */
static PyObject *sweep(PyObject *self, PyObject *args) {
    Py_buffer starts_view, ends_view;
    PyObject *categories;
    if (!PyArg_ParseTuple(args, "y*y*O!", &starts_view, &ends_view, &PyTuple_Type, &categories)) return NULL;
    Py_ssize_t kinds = PyTuple_GET_SIZE(categories);
    size_t windows = (size_t)starts_view.len / sizeof(double);
    Py_buffer views[8];
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    double *bounds = NULL;
    if (kinds > 8 || (size_t)ends_view.len != windows * sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "starts and ends of one length, at most 8 categories");
        goto done;
    }
    for (; got < kinds; got++)
        if (PyObject_GetBuffer(PyTuple_GET_ITEM(categories, got), &views[got], PyBUF_SIMPLE) < 0) goto done;
    result = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(windows * (size_t)(kinds + 1) * sizeof(double)));
    bounds = malloc((windows * 2 + 1) * sizeof(double));
    if (!result || !bounds) {
        Py_CLEAR(result);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        goto done;
    }
    const double *starts = starts_view.buf, *ends = ends_view.buf;
    double *table = (double *)PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS;
    memset(table, 0, windows * (size_t)(kinds + 1) * sizeof(double));
    /* the windows' own boundaries, sorted (few: one window a step) */
    size_t count = 0;
    for (size_t w = 0; w < windows; w++) bounds[count++] = starts[w], bounds[count++] = ends[w];
    for (size_t i = 1; i < count; i++) { /* insertion sort: starts are sorted, ends nearly so */
        double v = bounds[i];
        size_t j = i;
        while (j > 0 && bounds[j - 1] > v) bounds[j] = bounds[j - 1], j--;
        bounds[j] = v;
    }
    size_t at[8] = {0}, length[8], own = 0, window_at = 0;
    const double *list[8];
    for (Py_ssize_t k = 0; k < kinds; k++) list[k] = views[k].buf, length[k] = (size_t)views[k].len / sizeof(double);
    long current = -1;
    while (1) {
        /* b: the smallest boundary not passed yet */
        double b = INFINITY;
        int any = 0;
        if (own < count) b = bounds[own], any = 1;
        for (Py_ssize_t k = 0; k < kinds; k++)
            if (at[k] < length[k] && (!any || list[k][at[k]] < b)) b = list[k][at[k]], any = 1;
        if (!any) break;
        while (own < count && bounds[own] <= b) own++;
        for (Py_ssize_t k = 0; k < kinds; k++)
            while (at[k] < length[k] && list[k][at[k]] <= b) at[k]++;
        while (window_at < windows && starts[window_at] <= b) current = (long)window_at++;
        /* the next boundary: the segment [b, next) */
        double next = INFINITY;
        any = 0;
        if (own < count) next = bounds[own], any = 1;
        for (Py_ssize_t k = 0; k < kinds; k++)
            if (at[k] < length[k] && (!any || list[k][at[k]] < next)) next = list[k][at[k]], any = 1;
        if (!any) break;
        if (current < 0 || !(ends[current] > b)) continue;
        Py_ssize_t column = kinds;
        for (Py_ssize_t k = 0; k < kinds; k++)
            if (at[k] & 1) {
                column = k;
                break;
            }
        table[(size_t)current * (size_t)(kinds + 1) + (size_t)column] += next - b;
    }
    Py_END_ALLOW_THREADS;
done:
    for (Py_ssize_t k = 0; k < got; k++) PyBuffer_Release(&views[k]);
    free(bounds);
    PyBuffer_Release(&starts_view);
    PyBuffer_Release(&ends_view);
    return result;
}

static PyMethodDef methods[] = {
    {"sweep", sweep, METH_VARARGS, "sweep(starts, ends, categories) -> float64 [window][category + idle] bytes"},
    {"bounds", bounds, METH_VARARGS, "bounds(buffer, start) -> (int64 commas bytes, end): split.py's scan()"},
    {"nesting", nesting, METH_VARARGS, "nesting(lane int64, ts, dur float64) -> (int64 parent, int32 depth) bytes"},
    {"scan", scan, METH_VARARGS,
     "scan(body, count) -> (tables, ids, floats, ints) or None: the fields parse.py reads from `count` events"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_scan", "The trace events' fields, read from a batch's JSON bytes in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scan(void) { return PyModule_Create(&module); }
