/* CountMatrix.dot_by_feature in C: a CSR matrix times a dense (n_features, k) matrix, one
 * pass over the stored values, each adding its value times its feature's row of k weights to
 * its document's k sums. dot_runs does the same for the values of one block of columns
 * (ColumnBlocks), so that the block's weight rows stay in the cache.
 *
 * numpy does this as a gather of the rows (a copy), a multiply and np.add.reduceat, three
 * passes over values x k floats; here each value costs k multiply-adds in the cache. A
 * document's products are added in the order of its values, so its sums do not depend on the
 * other documents of the batch; reduceat adds them in another order, so the two paths agree
 * to rounding, not to the bit. The loop releases the interpreter lock, so threads sum blocks
 * side by side.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

PyDoc_STRVAR(dot_doc, "dot(indptr, indices, data, by_feature, k, out)\n\n"
             "out[d] = sum of data[v] * by_feature[indices[v]] over document d's values v, for\n"
             "indptr, indices (int64), data (float64) of a CSR matrix and by_feature, out float64\n"
             "C-ordered with k columns. A document with no values gets zeros.");

/* Adds value x times the k weights w to sum; the first value of a document sets it. */
static inline void add_row(double *sum, double x, const double *w, Py_ssize_t k, int first)
{
    if (first)
        for (Py_ssize_t j = 0; j < k; j++)
            sum[j] = x * w[j];
    else
        for (Py_ssize_t j = 0; j < k; j++)
            sum[j] += x * w[j];
}

static PyObject *dot(PyObject *self, PyObject *args)
{
    Py_buffer indptr, indices, data, by_feature, out;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nw*", &indptr, &indices, &data, &by_feature, &k, &out))
        return NULL;
    Py_ssize_t n_docs = indptr.len / 8 - 1, n_values = indices.len / 8;
    Py_ssize_t n_features = k > 0 ? by_feature.len / 8 / k : 0;
    const int64_t *ptr = indptr.buf, *column = indices.buf;
    int ok = k > 0 && indptr.len % 8 == 0 && n_docs >= 0 && indices.len % 8 == 0 && data.len == indices.len
             && by_feature.len % (8 * k) == 0 && out.len == 8 * k * n_docs;
    for (Py_ssize_t d = 0; ok && d <= n_docs; d++)  /* rows in order, inside the values */
        ok = ptr[d] >= (d ? ptr[d - 1] : 0) && ptr[d] <= n_values;
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "dot: arrays of the wrong size");
    Py_ssize_t bad = -1;
    if (ok) {
        const double *value = data.buf, *weights = by_feature.buf;
        double *sums = out.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t d = 0; d < n_docs && bad < 0; d++) {
            double *sum = sums + d * k;
            for (Py_ssize_t j = 0; j < k; j++)
                sum[j] = 0.0;
            for (int64_t v = ptr[d]; v < ptr[d + 1]; v++) {
                if (column[v] < 0 || column[v] >= n_features) {
                    bad = v;
                    break;
                }
                add_row(sum, value[v], weights + column[v] * k, k, v == ptr[d]);
            }
        }
        Py_END_ALLOW_THREADS
        if (bad >= 0) {
            PyErr_Format(PyExc_IndexError, "dot: value %zd is in column %lld, outside %zd features", bad,
                         (long long)column[bad], n_features);
            ok = 0;
        }
    }
    PyBuffer_Release(&indptr);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&data);
    PyBuffer_Release(&by_feature);
    PyBuffer_Release(&out);
    return ok ? Py_NewRef(Py_None) : NULL;
}

PyDoc_STRVAR(dot_runs_doc, "dot_runs(run_doc, run_start, run_end, indices, data, by_feature, k, out, started)\n\n"
             "For each run r in order, adds data[v] * by_feature[indices[v]] over the values v from\n"
             "run_start[r] to run_end[r] to out[run_doc[r]]. A document's first value sets its sums\n"
             "instead, where started[doc] is 0, and sets started[doc]. int64 runs and indices,\n"
             "float64 data, by_feature and out (C-ordered, k columns), uint8 started: dot() taken\n"
             "a block of columns at a time, with the same sums where a document's values come in\n"
             "the same order.");

static PyObject *dot_runs(PyObject *self, PyObject *args)
{
    Py_buffer run_doc, run_start, run_end, indices, data, by_feature, out, started;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*nw*w*", &run_doc, &run_start, &run_end, &indices, &data, &by_feature,
                          &k, &out, &started))
        return NULL;
    Py_ssize_t n_runs = run_doc.len / 8, n_values = indices.len / 8, n_docs = started.len;
    Py_ssize_t n_features = k > 0 ? by_feature.len / 8 / k : 0;
    const int64_t *doc = run_doc.buf, *start = run_start.buf, *end = run_end.buf, *column = indices.buf;
    int ok = k > 0 && run_doc.len % 8 == 0 && run_start.len == run_doc.len && run_end.len == run_doc.len
             && indices.len % 8 == 0 && data.len == indices.len && by_feature.len % (8 * k) == 0
             && out.len == 8 * k * n_docs;
    for (Py_ssize_t r = 0; ok && r < n_runs; r++)
        ok = doc[r] >= 0 && doc[r] < n_docs && start[r] >= 0 && start[r] <= end[r] && end[r] <= n_values;
    for (Py_ssize_t r = 0; ok && r < n_runs; r++)
        for (int64_t v = start[r]; ok && v < end[r]; v++)
            ok = column[v] >= 0 && column[v] < n_features;
    if (!ok)
        PyErr_SetString(PyExc_ValueError, "dot_runs: arrays of the wrong size, or a run or column out of range");
    else {
        const double *value = data.buf, *weights = by_feature.buf;
        double *sums = out.buf;
        uint8_t *begun = started.buf;
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t r = 0; r < n_runs; r++) {
            double *sum = sums + doc[r] * k;
            int64_t v = start[r];
            if (v < end[r] && !begun[doc[r]]) {
                add_row(sum, value[v], weights + column[v] * k, k, 1);
                begun[doc[r]] = 1;
                v++;
            }
            for (; v < end[r]; v++)
                add_row(sum, value[v], weights + column[v] * k, k, 0);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&run_doc);
    PyBuffer_Release(&run_start);
    PyBuffer_Release(&run_end);
    PyBuffer_Release(&indices);
    PyBuffer_Release(&data);
    PyBuffer_Release(&by_feature);
    PyBuffer_Release(&out);
    PyBuffer_Release(&started);
    return ok ? Py_NewRef(Py_None) : NULL;
}

static PyMethodDef methods[] = {
    {"dot", dot, METH_VARARGS, dot_doc},
    {"dot_runs", dot_runs, METH_VARARGS, dot_runs_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_sparsedot", "The compiled sparse-times-dense product of nbtext.counting.", -1,
    methods,
};

PyMODINIT_FUNC PyInit__sparsedot(void)
{
    return PyModule_Create(&module);
}
