/* ridgeline.store._segment_core: a short series' packed segment, encoded in one call, compiled.
 *
 * segment(steps, wall_times, values, skip) takes the pending points of one series as three equally long lists
 * of 1-D C-contiguous arrays (int64 steps, float64 wall times, float64 values: the pieces as they were appended,
 * read end to end as one column each) and returns (data, count, fell, first, last):
 *
 *   data   the packed segment, byte for byte what ridgeline.store.packs.encode_segment writes: its header
 *          (count, value itemsize, steps bytes, wall-time bytes: int64 LE), the steps and the wall times (the
 *          bits of their float64) each one chunk of ridgeline.store.encoding.encode(column, 0), then the values
 *          as float32 when every one is exactly a float32 (its bits survive the round trip), else as float64,
 *          padded with zeros to 8 bytes;
 *   count  the points;
 *   fell   whether a step at or after point ``skip`` is not above the one before it;
 *   first, last   the steps of point ``skip`` and of the last point.
 *
 * The arrays are copied and encoded without the GIL, so the ingest thread goes on parsing meanwhile. The Python
 * encoders stay the fallback (a source install without a compiler), and tests/store checks both give the same
 * bytes. The input is the store's own arrays, not a file's bytes: every length is still checked before use.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ridgeline.store.encoding's constants */
#define MIN_RUN 16
#define PIECE_POINTS 257
enum { RUN = 0, DELTA32 = 1, RAW = 2, DELTA8 = 3, DELTA16 = 4 };
#define PIECE_BYTES 48  /* six int64: first, count, base, stride, offset, kind */

typedef struct {
    uint8_t *data;
    size_t length, capacity;
    int failed;
} Buffer;

static int reserve(Buffer *buffer, size_t more) {
    if (buffer->failed) return -1;
    if (buffer->length + more <= buffer->capacity) return 0;
    size_t capacity = buffer->capacity ? buffer->capacity : 256;
    while (capacity < buffer->length + more) capacity *= 2;
    uint8_t *data = realloc(buffer->data, capacity);
    if (data == NULL) {
        buffer->failed = 1;
        return -1;
    }
    buffer->data = data;
    buffer->capacity = capacity;
    return 0;
}

/* Little-endian stores of a fixed width: one instruction each on a little-endian host */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PUT(bits)                                                              \
    static inline void put##bits(uint8_t *out, uint64_t value) {               \
        uint##bits##_t word = (uint##bits##_t)value;                           \
        memcpy(out, &word, sizeof word);                                       \
    }
#else
#define PUT(bits)                                                              \
    static inline void put##bits(uint8_t *out, uint64_t value) {               \
        for (size_t i = 0; i < (bits) / 8; i++) out[i] = (uint8_t)(value >> (8 * i)); \
    }
#endif
PUT(8)
PUT(16)
PUT(32)
PUT(64)

static void append_le64(Buffer *buffer, int64_t value) {
    if (reserve(buffer, 8) == 0) {
        put64(buffer->data + buffer->length, (uint64_t)value);
        buffer->length += 8;
    }
}

static void append_zeros(Buffer *buffer, size_t count) {
    if (reserve(buffer, count) == 0) {
        memset(buffer->data + buffer->length, 0, count);
        buffer->length += count;
    }
}

static void add_piece(Buffer *pieces, int64_t first, int64_t count, int64_t base, int64_t stride, int64_t offset,
                      int64_t kind) {
    append_le64(pieces, first);
    append_le64(pieces, count);
    append_le64(pieces, base);
    append_le64(pieces, stride);
    append_le64(pieces, offset);
    append_le64(pieces, kind);
}

/* d[i] = x[i + 1] - x[i], wrapping as numpy's int64 arithmetic does */
static void deltas_of(const int64_t *x, size_t n, int64_t *d) {
    for (size_t i = 0; i + 1 < n; i++) d[i] = (int64_t)((uint64_t)x[i + 1] - (uint64_t)x[i]);
}

/* encoding._delta_pieces: points start..end as pieces of PIECE_POINTS, each its deltas in the narrowest of
 * int8/16/32 that holds them, or its values raw; payloads padded to 8 bytes */
static void delta_pieces(const int64_t *x, const int64_t *d, size_t start, size_t end, Buffer *pieces,
                         Buffer *payload) {
    for (size_t begin = start; begin < end; begin += PIECE_POINTS) {
        size_t count = end - begin < PIECE_POINTS ? end - begin : PIECE_POINTS;
        int64_t low = 0, high = 0;
        if (count > 1) {
            low = high = d[begin];
            for (size_t i = begin + 1; i + 1 < begin + count; i++) {
                low = d[i] < low ? d[i] : low;
                high = d[i] > high ? d[i] : high;
            }
        }
        int kind = RAW, width = 8;
        if (low >= INT8_MIN && high <= INT8_MAX)
            kind = DELTA8, width = 1;
        else if (low >= INT16_MIN && high <= INT16_MAX)
            kind = DELTA16, width = 2;
        else if (low >= INT32_MIN && high <= INT32_MAX)
            kind = DELTA32, width = 4;
        size_t size = kind == RAW ? count * 8 : (count - 1) * (size_t)width;
        size_t padded = size + (8 - size % 8) % 8;
        add_piece(pieces, (int64_t)begin, (int64_t)count, x[begin], 0, (int64_t)payload->length, kind);
        if (reserve(payload, padded) != 0) return;
        uint8_t *out = payload->data + payload->length;
        const int64_t *from = x + begin, *step = d + begin;
        switch (kind) {
        case RAW:
            for (size_t i = 0; i < count; i++) put64(out + 8 * i, (uint64_t)from[i]);
            break;
        case DELTA32:
            for (size_t i = 0; i + 1 < count; i++) put32(out + 4 * i, (uint64_t)step[i]);
            break;
        case DELTA16:
            for (size_t i = 0; i + 1 < count; i++) put16(out + 2 * i, (uint64_t)step[i]);
            break;
        default:
            for (size_t i = 0; i + 1 < count; i++) put8(out + i, (uint64_t)step[i]);
        }
        memset(out + size, 0, padded - size);
        payload->length += padded;
    }
}

/* encoding.encode(x, 0), appended to out: runs of constant stride of at least MIN_RUN points as RUN pieces (a
 * run that meets the one before it starts after that one's last point), deltas or raw values between them */
static void encode_column(const int64_t *x, int64_t *d, size_t n, Buffer *out, Buffer *pieces, Buffer *payload) {
    pieces->length = payload->length = 0;
    deltas_of(x, n, d);
    size_t written = 0;
    if (n > 1) {
        size_t deltas = n - 1, group = 0;  /* deltas group..i-1 are equal: points group..i */
        for (size_t i = 1; i <= deltas; i++) {
            if (i < deltas && d[i] == d[i - 1]) continue;
            if (i - group + 1 >= MIN_RUN) {
                size_t start = group > written ? group : written, end = i + 1;
                delta_pieces(x, d, written, start, pieces, payload);
                add_piece(pieces, (int64_t)start, (int64_t)(end - start), x[start], d[start], -1, RUN);
                written = end;
            }
            group = i;
        }
    }
    delta_pieces(x, d, written, n, pieces, payload);
    append_le64(out, (int64_t)(pieces->length / PIECE_BYTES));
    append_le64(out, (int64_t)payload->length);
    if (reserve(out, pieces->length + payload->length) == 0) {
        memcpy(out->data + out->length, pieces->data, pieces->length);
        memcpy(out->data + out->length + pieces->length, payload->data, payload->length);
        out->length += pieces->length + payload->length;
    }
}

typedef struct {
    Py_buffer *views;
    Py_ssize_t count, held;
    size_t points;
} Column;

static int accepts(const Py_buffer *view, const char *codes) {
    const char *format = view->format ? view->format : "B";
    if (*format == '<' || *format == '=' || *format == '@') format++;
    return view->ndim == 1 && view->itemsize == 8 && format[0] != '\0' && format[1] == '\0' &&
           strchr(codes, format[0]) != NULL;
}

static void release(Column *column) {
    for (Py_ssize_t i = 0; i < column->held; i++) PyBuffer_Release(&column->views[i]);
    PyMem_Free(column->views);
    column->views = NULL;
    column->held = 0;
}

/* the buffers of one column's arrays (a list), each 1-D, C-contiguous, of 8-byte items of one of ``codes`` */
static int take(PyObject *arrays, const char *codes, const char *name, Column *column) {
    column->views = NULL;
    column->held = 0;
    column->points = 0;
    if (!PyList_Check(arrays)) {
        PyErr_Format(PyExc_TypeError, "segment: %s must be a list of arrays", name);
        return -1;
    }
    column->count = PyList_GET_SIZE(arrays);
    column->views = PyMem_Calloc(column->count ? (size_t)column->count : 1, sizeof(Py_buffer));
    if (column->views == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < column->count; i++) {
        Py_buffer *view = &column->views[i];
        if (PyObject_GetBuffer(PyList_GET_ITEM(arrays, i), view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
            PyErr_Clear();  /* numpy's own error for a strided array is a ValueError: one kind for the caller */
            PyErr_Format(PyExc_TypeError, "segment: %s must hold C-contiguous arrays", name);
            release(column);
            return -1;
        }
        column->held++;
        if (!accepts(view, codes)) {
            PyErr_Format(PyExc_TypeError, "segment: %s must hold 1-D arrays of %s", name,
                         codes[0] == 'd' ? "float64" : "int64");
            release(column);
            return -1;
        }
        column->points += (size_t)(view->len / 8);
    }
    return 0;
}

static void gather(const Column *column, void *out) {
    uint8_t *at = out;
    for (Py_ssize_t i = 0; i < column->count; i++) {
        memcpy(at, column->views[i].buf, (size_t)column->views[i].len);
        at += column->views[i].len;
    }
}

static PyObject *segment(PyObject *self, PyObject *args) {
    PyObject *step_arrays, *wall_arrays, *value_arrays;
    Py_ssize_t skip;
    if (!PyArg_ParseTuple(args, "O!O!O!n", &PyList_Type, &step_arrays, &PyList_Type, &wall_arrays, &PyList_Type,
                          &value_arrays, &skip))
        return NULL;
    Column steps, walls, values;
    if (take(step_arrays, "lq", "steps", &steps) != 0) return NULL;
    if (take(wall_arrays, "d", "wall_times", &walls) != 0) {
        release(&steps);
        return NULL;
    }
    if (take(value_arrays, "d", "values", &values) != 0) {
        release(&steps);
        release(&walls);
        return NULL;
    }
    size_t n = steps.points;
    PyObject *result = NULL;
    if (walls.points != n || values.points != n || skip < 0 || (size_t)skip >= n) {
        PyErr_Format(PyExc_ValueError,
                     "segment: steps, wall_times and values must be equally long and hold a point at skip=%zd "
                     "(%zu, %zu, %zu points)",
                     skip, n, walls.points, values.points);
        goto done;
    }
    int64_t *x = malloc(n * 8), *bits = malloc(n * 8), *d = malloc(n * 8);
    double *value = malloc(n * 8);
    Buffer out = {0}, pieces = {0}, payload = {0};
    int fell = 0, narrow = 1;
    if (x == NULL || bits == NULL || d == NULL || value == NULL) {
        out.failed = 1;
    } else {
        Py_BEGIN_ALLOW_THREADS
        gather(&steps, x);
        gather(&walls, bits);
        gather(&values, value);
        for (size_t i = (size_t)skip + 1; i < n && !fell; i++) fell = x[i] <= x[i - 1];
        for (size_t i = 0; i < n && narrow; i++) {
            double back = (double)(float)value[i];
            narrow = memcmp(&back, &value[i], 8) == 0;
        }
        /* sized for the worst case up front, so nothing is reallocated: raw values, and as many pieces as runs of
         * MIN_RUN - 1 points (the shortest, once a run that meets the one before it gives up its first point)
         * with a piece of deltas between each two, plus the pieces PIECE_POINTS splits off */
        size_t most_pieces = n / PIECE_POINTS + 2 * (n / (MIN_RUN - 1)) + 4;
        reserve(&out, 64 + 2 * (16 + most_pieces * PIECE_BYTES + n * 8 + most_pieces * 8) + n * 8);
        reserve(&pieces, most_pieces * PIECE_BYTES);
        reserve(&payload, n * 8 + most_pieces * 8);
        append_zeros(&out, 32);  /* the header, filled in below */
        size_t at = out.length;
        encode_column(x, d, n, &out, &pieces, &payload);
        size_t step_bytes = out.length - at;
        at = out.length;
        encode_column(bits, d, n, &out, &pieces, &payload);
        size_t wall_bytes = out.length - at;
        size_t value_bytes = n * (narrow ? 4 : 8);
        if (reserve(&out, value_bytes + 8) == 0) {
            uint8_t *to = out.data + out.length;
            for (size_t i = 0; i < n; i++) {
                if (narrow) {
                    float single = (float)value[i];
                    uint32_t word;
                    memcpy(&word, &single, 4);
                    put32(to + 4 * i, word);
                } else {
                    uint64_t word;
                    memcpy(&word, &value[i], 8);
                    put64(to + 8 * i, word);
                }
            }
            out.length += value_bytes;
            append_zeros(&out, (8 - value_bytes % 8) % 8);
            put64(out.data, (uint64_t)n);
            put64(out.data + 8, narrow ? 4 : 8);
            put64(out.data + 16, (uint64_t)step_bytes);
            put64(out.data + 24, (uint64_t)wall_bytes);
        }
        Py_END_ALLOW_THREADS
    }
    if (out.failed || pieces.failed || payload.failed) {
        PyErr_NoMemory();
    } else {
        result = Py_BuildValue("(y#nNLL)", (const char *)out.data, (Py_ssize_t)out.length, (Py_ssize_t)n,
                               PyBool_FromLong(fell), (long long)x[skip], (long long)x[n - 1]);
    }
    free(x);
    free(bits);
    free(d);
    free(value);
    free(out.data);
    free(pieces.data);
    free(payload.data);
done:
    release(&steps);
    release(&walls);
    release(&values);
    return result;
}

static PyMethodDef methods[] = {
    {"segment", segment, METH_VARARGS,
     "segment(steps, wall_times, values, skip) -> (data, count, fell, first, last): one series' packed segment"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_segment_core",
    .m_doc = "ridgeline's compiled encoder of packed segments (see ridgeline.store.packs).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__segment_core(void) { return PyModule_Create(&module); }
