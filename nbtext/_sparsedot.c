/* CountMatrix.dot_by_feature in C: a CSR matrix times a dense (n_features, k) matrix, one
 * pass over the stored values, each adding its value times its feature's row of k weights to
 * its document's k sums.
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
                const double x = value[v], *w = weights + column[v] * k;
                if (v == ptr[d])
                    for (Py_ssize_t j = 0; j < k; j++)
                        sum[j] = x * w[j];
                else
                    for (Py_ssize_t j = 0; j < k; j++)
                        sum[j] += x * w[j];
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

static PyMethodDef methods[] = {
    {"dot", dot, METH_VARARGS, dot_doc},
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
