/* The compiled kernels of hodyn as one shared library per instruction set (see kernel.h):
 * what the library reports about itself, the checks every entry point runs, and the module
 * init that only makes the file importable (setuptools builds and finds it like any
 * extension; backends/compiled.py loads it with ctypes). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "kernel.h"

#ifndef HODYN_MODULE
#define HODYN_MODULE _kernel
#endif
#define HK_CAT(a, b) a##b
#define HK_XCAT(a, b) HK_CAT(a, b)
#define HK_STR(a) #a
#define HK_XSTR(a) HK_STR(a)

double BINOM[MAXK][MAXK];

__attribute__((constructor)) static void fill_binomials(void) {
    for (int k = 0; k < MAXK; k++) {
        BINOM[k][0] = 1;
        for (int j = 1; j <= k; j++) BINOM[k][j] = BINOM[k - 1][j - 1] + (j < k ? BINOM[k - 1][j] : 0);
    }
}

int hodyn_kernel_abi(void) { return HODYN_KERNEL_ABI; }

/* samples per lockstep group */
int hodyn_kernel_lanes(void) { return LANES; }

/* the instruction set this library was compiled for */
const char *hodyn_kernel_isa(void) {
#if defined(__AVX512F__)
    return "AVX-512";
#elif defined(__AVX2__) && defined(__FMA__)
    return "AVX2+FMA";
#elif defined(__SSE2__)
    return "SSE2";
#elif defined(__ARM_NEON)
    return "NEON";
#else
    return "generic";
#endif
}

/* what this CPU runs: 2 AVX-512 (F), 1 AVX2 and FMA, 0 the baseline */
int hodyn_cpu_level(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 2;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
    return 0;
}

/* The sizes every entry point checks before it reads anything: a tree numbered parents
 * first (so that no index leaves [0, n)), joint kinds it runs (the multi-DOF ones where
 * `multi`) with their velocity coordinates' offsets and pitches, N >= 0 samples, D >= need_D
 * derivative orders of q, samples at least D nv values apart (qstride; < 0: no q), an order
 * the tables hold, and 1 or N rows of a per-sample input (rows < 0: none). */
int hk_check_joints(const HModel *m, int64_t N, int D, int need_D, int order, int64_t rows,
                    int64_t qstride, int multi) {
    if (!m || m->n < 1 || m->dof[0] != 0) return HK_MODEL;
    for (int i = 0; i < m->n; i++) {
        const int k = m->kind[i];
        if (m->parent[i] < -1 || m->parent[i] >= i) return HK_MODEL;
        if (k < HJ_PRISMATIC || k > (multi ? HJ_FREE : HJ_HELICAL)) return HK_MODEL;
        if (m->dof[i + 1] - m->dof[i] != hk_joint_dofs(k)) return HK_MODEL;
        if (!isfinite(m->pitch[i]) || (k != HJ_HELICAL && m->pitch[i] != 0)) return HK_MODEL;
        if (!m->anc[(size_t)i * m->n + i]) return HK_MODEL;
    }
    if (order < 0 || order + 2 > MAXK) return HK_ORDER;
    if (N < 0 || D < need_D) return HK_SIZE;
    if (qstride >= 0 && qstride < (int64_t)D * m->dof[m->n]) return HK_SIZE;
    if (rows >= 0 && rows != 1 && rows != N) return HK_SIZE;
    return HK_OK;
}

int hk_check(const HModel *m, int64_t N, int D, int need_D, int order, int64_t rows,
             int64_t qstride) {
    return hk_check_joints(m, N, D, need_D, order, rows, qstride, 0);
}

void *hk_alloc(size_t bytes) {
    void *p = NULL;
    return posix_memalign(&p, sizeof(vd) < 16 ? 16 : sizeof(vd), bytes ? bytes : 1) ? NULL : p;
}

static void inertia_of(const double *Mi, Inertia *out) {
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) out->Th[3 * r + col] = Mi[6 * r + col];
    out->h[0] = Mi[2 * 6 + 4]; out->h[1] = Mi[0 * 6 + 5]; out->h[2] = Mi[1 * 6 + 3];
    out->m = Mi[3 * 6 + 3];
}

static void blocks_of(const double *A, Adjoint *out) {
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            out->R[3 * r + c] = A[6 * r + c];
            out->P[3 * r + c] = A[6 * (r + 3) + c];
        }
}

int hk_consts(const HModel *m, Consts *c) {
    const int n = m->n;
    c->m = m;
    c->n = n;
    c->B = malloc(sizeof(Adjoint) * 3 * n);
    c->In = malloc(sizeof(Inertia) * n);
    if (!c->B || !c->In) { hk_free_consts(c); return HK_NOMEM; }
    for (int i = 0; i < n; i++) {
        blocks_of(m->A0 + 36 * i, &c->B[3 * i]);
        blocks_of(m->A1 + 36 * i, &c->B[3 * i + 1]);
        blocks_of(m->A2 + 36 * i, &c->B[3 * i + 2]);
        inertia_of(m->M + 36 * i, &c->In[i]);
    }
    if (m->M0) inertia_of(m->M0, &c->In0);
    else memset(&c->In0, 0, sizeof(Inertia));
    return HK_OK;
}

void hk_free_consts(Consts *c) {
    free(c->B);
    free(c->In);
    c->B = NULL;
    c->In = NULL;
}

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, .m_name = HK_XSTR(HODYN_MODULE),
    .m_doc = "Compiled kernels of hodyn (used via ctypes, see hodyn_cli.algorithms.backends.compiled).",
    .m_size = -1};

PyMODINIT_FUNC HK_XCAT(PyInit_, HODYN_MODULE)(void) { return PyModule_Create(&kernel_module); }
