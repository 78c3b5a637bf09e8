/* ridgeline.writer._scalar_core: the writer thread's framing of queued scalars, compiled.
 *
 * frame(items, heads, make_head) returns, as bytes, the TFRecord framing of one Event per item, end to end:
 * each item a tuple (tag: str, value: float, step: int, wall_time: float) as EventFileWriter.add_scalar queues
 * it, each record length (8 bytes LE), masked CRC32C of the length, the serialized event and the masked CRC32C
 * of the event. The event's bytes are what ridgeline.writer.event_file.encode_scalar_event gives (byte for byte
 * what protobuf produces): wall_time (field 1, double) unless its bits are all zero, step (field 2, varint,
 * a negative one as 10 bytes of two's complement) unless it is 0, then the tag's head (heads[tag], made by
 * make_head(tag) and stored there the first time a tag is met), then the value as a float32 (beyond float32's
 * range: an infinity of its sign, as the Python path's OverflowError handler gives).
 *
 * The Python path stays the fallback (a source install without a compiler), and tests/writer checks both give
 * the same bytes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../ingest/_crc32c.h"

/* 1 (field key) + 8 (double) + 1 (key) + 10 (varint) + 4 (float) beyond the head, and the 16 bytes of framing */
#define ITEM_SLACK 40

static size_t put_varint(uint8_t *out, uint64_t value) {
    size_t n = 0;
    while (value > 0x7F) {
        out[n++] = (uint8_t)((value & 0x7F) | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

static void put_le64(uint8_t *out, uint64_t value) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(value >> (8 * i));
}

static void put_le32(uint8_t *out, uint32_t value) {
    for (int i = 0; i < 4; i++) out[i] = (uint8_t)(value >> (8 * i));
}

static float to_float32(double value) {
    if (isfinite(value) && fabs(value) > FLT_MAX) {
        float y = (float)value; /* what the cast rounds to: FLT_MAX just past it, inf further (as Python) */
        if (isinf(y)) return value > 0 ? INFINITY : -INFINITY;
        return y;
    }
    return (float)value;
}

static PyObject *head_of(PyObject *tag, PyObject *heads, PyObject *make_head) {
    PyObject *head = PyDict_GetItemWithError(heads, tag); /* borrowed */
    if (head != NULL) {
        Py_INCREF(head);
        return head;
    }
    if (PyErr_Occurred()) return NULL;
    head = PyObject_CallOneArg(make_head, tag);
    if (head == NULL) return NULL;
    if (!PyBytes_Check(head)) {
        Py_DECREF(head);
        PyErr_SetString(PyExc_TypeError, "frame: make_head must return bytes");
        return NULL;
    }
    if (PyDict_SetItem(heads, tag, head) < 0) {
        Py_DECREF(head);
        return NULL;
    }
    return head;
}

static PyObject *scalar_frame(PyObject *self, PyObject *args) {
    PyObject *items, *heads, *make_head;
    if (!PyArg_ParseTuple(args, "O!O!O:frame", &PyList_Type, &items, &PyDict_Type, &heads, &make_head)) return NULL;
    Py_ssize_t count = PyList_GET_SIZE(items);
    size_t capacity = (size_t)count * (ITEM_SLACK + 32) + 64, used = 0;
    uint8_t *out = PyMem_Malloc(capacity);
    if (out == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(items, i);
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 4) {
            PyErr_SetString(PyExc_TypeError, "frame: each item must be a (tag, value, step, wall_time) tuple");
            goto fail;
        }
        double value = PyFloat_AsDouble(PyTuple_GET_ITEM(item, 1));
        if (value == -1.0 && PyErr_Occurred()) goto fail;
        long long step = PyLong_AsLongLong(PyTuple_GET_ITEM(item, 2));
        if (step == -1 && PyErr_Occurred()) goto fail;
        double wall = PyFloat_AsDouble(PyTuple_GET_ITEM(item, 3));
        if (wall == -1.0 && PyErr_Occurred()) goto fail;
        PyObject *head = head_of(PyTuple_GET_ITEM(item, 0), heads, make_head);
        if (head == NULL) goto fail;
        size_t head_size = (size_t)PyBytes_GET_SIZE(head);
        size_t need = used + head_size + ITEM_SLACK;
        if (need > capacity) {
            size_t grown = capacity * 2 > need ? capacity * 2 : need;
            uint8_t *bigger = PyMem_Realloc(out, grown);
            if (bigger == NULL) {
                Py_DECREF(head);
                PyErr_NoMemory();
                goto fail;
            }
            out = bigger;
            capacity = grown;
        }
        uint8_t *record = out + used, *data = record + 12, *p = data;
        uint64_t wall_bits;
        memcpy(&wall_bits, &wall, 8);
        if (wall_bits != 0) {
            *p++ = 0x09;
            put_le64(p, wall_bits);
            p += 8;
        }
        if (step != 0) {
            *p++ = 0x10;
            p += put_varint(p, (uint64_t)step);
        }
        memcpy(p, PyBytes_AS_STRING(head), head_size);
        p += head_size;
        Py_DECREF(head);
        float single = to_float32(value);
        uint32_t single_bits;
        memcpy(&single_bits, &single, 4);
        put_le32(p, single_bits);
        p += 4;
        size_t length = (size_t)(p - data);
        put_le64(record, (uint64_t)length);
        put_le32(record + 8, masked_crc32c(record, 8));
        put_le32(p, masked_crc32c(data, length));
        used += 12 + length + 4;
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)out, (Py_ssize_t)used);
    PyMem_Free(out);
    return result;
fail:
    PyMem_Free(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"frame", scalar_frame, METH_VARARGS,
     "frame(items, heads, make_head) -> bytes: the framed records of queued (tag, value, step, wall_time) scalars"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_scalar_core",
    .m_doc = "ridgeline's compiled framing of queued scalars (see ridgeline.writer.event_file).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__scalar_core(void) {
    crc32c_init();
    return PyModule_Create(&module);
}
