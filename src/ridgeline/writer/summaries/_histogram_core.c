/* ridgeline.writer.summaries._histogram_core: counts of float64 values per bin of sorted edges, in one pass.
 *
 * count(values, edges, table) returns, as a bytearray of len(edges) - 1 int64 counts, what
 * np.histogram(values, edges)[0] returns: bins [e_i, e_i+1), the last one closed; NaN and values outside the
 * edges are not counted. It runs without the GIL.
 *
 * Each value is placed by a lookup and then corrected exactly: the float's bits, mapped to an order-preserving
 * uint64, index `table` by their top 16 bits (sign, exponent and 4 mantissa bits: a cell spans less than 6.25 %
 * of its values' magnitude), and table[cell] is a rank (the number of edges <= some value of the cell). The
 * rank is then moved up or down until edges[rank - 1] <= x < edges[rank]: with torch's default edges (a factor
 * 1.1 apart) at most one step, with any table at all still exact (only slower).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define TABLE_CELLS 65536

static PyObject *count(PyObject *self, PyObject *args) {
    Py_buffer values, edges, table;
    if (!PyArg_ParseTuple(args, "y*y*y*:count", &values, &edges, &table)) return NULL;
    PyObject *result = NULL;
    size_t n = (size_t)values.len / sizeof(double), ne = (size_t)edges.len / sizeof(double);
    if (values.len % sizeof(double) || edges.len % sizeof(double) || ne < 2) {
        PyErr_SetString(PyExc_ValueError, "values and edges must be float64 buffers, edges of at least 2");
        goto done;
    }
    if (table.len != TABLE_CELLS * (Py_ssize_t)sizeof(uint16_t)) {
        PyErr_SetString(PyExc_ValueError, "table must hold 65536 uint16 ranks");
        goto done;
    }
    /* above[r] = edges[r] and below[r] = edges[r - 1], padded with infinities: no bounds to check per value */
    double *above = PyMem_Malloc((ne + 1) * sizeof(double)), *below = PyMem_Malloc((ne + 1) * sizeof(double));
    if (above == NULL || below == NULL) {
        PyMem_Free(above);
        PyMem_Free(below);
        PyErr_NoMemory();
        goto done;
    }
    const double *v = values.buf, *e = edges.buf;
    memcpy(above, e, ne * sizeof(double));
    above[ne] = INFINITY;
    below[0] = -INFINITY;
    memcpy(below + 1, e, ne * sizeof(double));
    result = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)((ne + 1) * sizeof(int64_t)));
    if (result == NULL) {
        PyMem_Free(above);
        PyMem_Free(below);
        goto done;
    }
    int64_t *ranks = (int64_t *)PyByteArray_AS_STRING(result); /* ranks[r]: values with r edges <= them */
    memset(ranks, 0, (ne + 1) * sizeof(int64_t));
    const uint16_t *cells = table.buf;
    const double right = e[ne - 1];
    int64_t on_right = 0; /* values equal to the last edge: the last bin is closed */
    Py_BEGIN_ALLOW_THREADS
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        if (!isfinite(x)) continue; /* NaN and infinities lie outside every bin (the edges are finite) */
        uint64_t bits;
        memcpy(&bits, &x, 8);
        uint64_t ordered = (bits >> 63) ? ~bits : bits | 0x8000000000000000ull;
        size_t rank = cells[ordered >> 48];
        if (rank > ne) rank = ne;
        rank += x >= above[rank]; /* one step either way, without a branch: all the default edges need */
        rank -= x < below[rank];
        while (x >= above[rank]) rank++; /* any other table or edges: still exact */
        while (x < below[rank]) rank--;
        ranks[rank]++;
        on_right += x == right;
    }
    Py_END_ALLOW_THREADS
    PyMem_Free(above);
    PyMem_Free(below);
    /* bin [e_r-1, e_r) holds the values of rank r, for r = 1 .. ne - 1; the last bin also those of rank ne that
     * equal its right edge */
    memmove(ranks, ranks + 1, (ne - 1) * sizeof(int64_t));
    ranks[ne - 2] += on_right;
    if (PyByteArray_Resize(result, (Py_ssize_t)((ne - 1) * sizeof(int64_t))) < 0) Py_CLEAR(result);
done:
    PyBuffer_Release(&values);
    PyBuffer_Release(&edges);
    PyBuffer_Release(&table);
    return result;
}

static PyMethodDef methods[] = {
    {"count", count, METH_VARARGS, "count(values, edges, table) -> bytearray of int64 counts per bin"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_histogram_core",
    .m_doc = "ridgeline's compiled histogram count (see ridgeline.writer.summaries._histograms).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__histogram_core(void) { return PyModule_Create(&module); }
