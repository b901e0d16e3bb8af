/* The sequential parts of time-optimal reachability along a path (limits/reachability.py,
 * TOPP-RA: Pham and Pham, IEEE T-RO 34(3), 2018), where each step needs the one before (numpy
 * runs them as a Python loop over the grid), and the B-splines' banded solve and values
 * (limits/bsplines.py). The numpy references are backends/numpy/reach.py; the
 * floating-point operations are theirs, in their order (tests/test_reach_kernel.py holds the
 * two together). */
#include "kernel.h"

/* no fused multiply-adds: the same roundings as the numpy reference's */
#pragma GCC optimize("fp-contract=off")
#ifdef __clang__  /* (clang ignores GCC's pragma and contracts by default) */
#pragma STDC FP_CONTRACT OFF
#endif

/* The backward pass from the rows (alpha u + beta x <= gamma, M x m; delta[M-1] the grid's
 * steps; K[M][2] (lower, upper x), K[M-1] given, the rest written): per step i < M-1 and row j
 * with |alpha| > tiny, e = 2 delta_i beta - alpha,
 * the bound (2 delta_i gamma + w_hi hi + w_lo lo) / e on x at i from K[i+1] = (lo, hi) (w_hi =
 * -alpha where alpha < -tiny, w_lo = -alpha where alpha > tiny; each weight divided by e and
 * left out where that quotient is 0), an upper bound where e > 0, a lower one where e < 0,
 * none where e = 0 or NaN (a NaN bound left out: each comparison false for it); K[i] =
 * (max(lo_s[i], lower bounds), min(hi_s[i], upper bounds)); where K[i+1] is empty (not lo <=
 * hi) it stops, K[..i] left as they are. The same operations in the same order as the numpy
 * reference's arrays (backends/numpy/reach.py's controllable and backward), each
 * row's terms made as the step reads them: those arrays, six of (M, m) a piece, were
 * ~1 s of CPU on the Panda's 10^5-sample Fourier path. */
int hodyn_reach_controllable(int64_t M, int m, const double *alpha, const double *beta,
                             const double *gamma, const double *delta, double tiny,
                             const double *lo_s, const double *hi_s, double *K) {
    if (M < 1 || m < 0) return HK_SIZE;
    for (int64_t i = M - 2; i >= 0; i--) {
        const double lo = K[2 * (i + 1)], hi = K[2 * (i + 1) + 1];
        if (!(lo <= hi)) break;
        const double d2 = 2 * delta[i];
        double top = INFINITY, bottom = -INFINITY;
        const size_t row = (size_t)i * m;
        for (int j = 0; j < m; j++) {
            const double a = alpha[row + j];
            const int with_hi = a < -tiny, with_lo = a > tiny;
            if (!with_hi && !with_lo) continue;
            const double e = d2 * beta[row + j] - a;
            if (!(e > 0) && !(e < 0)) continue;
            double b = d2 * gamma[row + j] / e;
            if (with_hi) {
                const double w = -a / e;
                if (w != 0) b = b + w * hi;
            }
            if (with_lo) {
                const double w = -a / e;
                if (w != 0) b = b + w * lo;
            }
            if (e > 0 && b < top) top = b;
            if (e < 0 && b > bottom) bottom = b;
        }
        K[2 * i] = lo_s[i] > bottom ? lo_s[i] : bottom;
        K[2 * i + 1] = top < hi_s[i] ? top : hi_s[i];
    }
    return HK_OK;
}

/* The forward pass. x[M] (x[0] given), u[M-1]: at each i the largest u within the rows
 * ``alpha u + beta x <= gamma`` (M x m; alpha > 0 where up[i][j], < 0 where down[i][j])
 * whose ``x + 2 delta_i u`` is within K[i+1] (the least within them where none is:
 * rounding at the edge), x[i+1] = that, clipped to K[i+1] and >= 0. */
int hodyn_reach_forward(int64_t M, int m, const double *alpha, const double *beta,
                        const double *gamma, const uint8_t *up, const uint8_t *down,
                        const double *delta, const double *K, double *x, double *u) {
    if (M < 1 || m < 0) return HK_SIZE;
    for (int64_t i = 0; i < M - 1; i++) {
        const double xi = x[i], d2 = 2 * delta[i];
        double most = (K[2 * (i + 1) + 1] - xi) / d2, least = (K[2 * (i + 1)] - xi) / d2;
        const size_t row = (size_t)i * m;
        for (int j = 0; j < m; j++) {
            if (!up[row + j] && !down[row + j]) continue;
            const double b = (gamma[row + j] - beta[row + j] * xi) / alpha[row + j];
            if (up[row + j] && b < most) most = b;
            if (down[row + j] && b > least) least = b;
        }
        const double ui = most < least ? least : most;
        double next = xi + d2 * ui;
        if (K[2 * (i + 1)] > next) next = K[2 * (i + 1)];
        if (0.0 > next) next = 0.0;
        if (K[2 * (i + 1) + 1] < next) next = K[2 * (i + 1) + 1];
        u[i] = ui;
        x[i + 1] = next;
    }
    return HK_OK;
}

/* The bounds on x at each point that the pairs of its rows ``alpha u + beta x <= gamma`` (M
 * x m) give, u eliminated: a row i with alpha > 0 (up[i]) and a row j with alpha < 0 (down[j])
 * bound x by (-alpha_j gamma_i + alpha_i gamma_j) / e, e = -alpha_j beta_i + alpha_i beta_j,
 * from above where e > 0 (hi[g] lowered to it) and from below where e < 0 (lo[g] raised to it);
 * e = 0 or NaN: no bound. A NaN bound makes the point's NaN (as numpy's minimum and maximum
 * propagate it; each comparison below is false for it); the numpy reference is
 * backends/numpy/reach.py's bounds, each product and sum the same (a pair a step: the
 * reference's blocks of pairs at once were 5-8 % of a 10^5-sample path's CPU). */
static inline double least(double a, double b) { return (a < b || a != a) ? a : b; }
static inline double most(double a, double b) { return (a > b || a != a) ? a : b; }

int hodyn_reach_bounds(int64_t M, int m, const double *alpha, const double *beta,
                       const double *gamma, const uint8_t *up, const uint8_t *down,
                       double *lo, double *hi) {
    if (M < 0 || m < 0) return HK_SIZE;
    for (int64_t g = 0; g < M; g++) {
        const size_t row = (size_t)g * m;
        const double *a = alpha + row, *b = beta + row, *c = gamma + row;
        double top = INFINITY, bottom = -INFINITY;
        for (int i = 0; i < m; i++) {
            if (!up[row + i]) continue;
            for (int j = 0; j < m; j++) {
                if (!down[row + j]) continue;
                const double aj = -a[j];
                const double e1 = aj * b[i], e2 = a[i] * b[j];
                const double e = e1 + e2;
                const double f1 = aj * c[i], f2 = a[i] * c[j];
                const double bound = (f1 + f2) / e;
                if (e > 0) top = least(bound, top);
                else if (e < 0) bottom = most(bound, bottom);
            }
        }
        hi[g] = least(hi[g], top);
        lo[g] = most(lo[g], bottom);
    }
    return HK_OK;
}

/* A banded system without pivoting (a B-spline collocation matrix is totally positive: de
 * Boor, A Practical Guide to Splines, ch. XIII). band[n][2k+1]: row i holds A[i][i-k ..
 * i+k] (overwritten by the elimination); rhs[n][r]: overwritten by the solution. */
int hodyn_banded_solve(int64_t n, int k, double *band, int r, double *rhs) {
    if (n < 1 || k < 0 || r < 0) return HK_SIZE;
    const int w = 2 * k + 1;
    for (int64_t i = 0; i < n; i++) {
        const double pivot = band[i * w + k];
        if (pivot == 0 || !isfinite(pivot)) return HK_SINGULAR;
        for (int d = 1; d <= k && i + d < n; d++) {
            double *below = band + (i + d) * w + (k - d);
            const double f = below[0] / pivot;
            for (int c = 0; c <= k; c++) below[c] = below[c] - f * band[i * w + k + c];
            for (int c = 0; c < r; c++) rhs[(i + d) * r + c] = rhs[(i + d) * r + c] - f * rhs[i * r + c];
        }
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        for (int c = 0; c < r; c++) {
            double s = 0;
            for (int j = 1; j <= k && i + j < n; j++) s = s + band[i * w + k + j] * rhs[(i + j) * r + c];
            rhs[i * r + c] = (rhs[i * r + c] - s) / band[i * w + k];
        }
    }
    return HK_OK;
}

/* the galloping's stride bound: it probes the knots 0, 1, 2, 4, .., GALLOP / 2 after the
 * previous point's (7 probes), then bisects all the knots after the last one passed (a point
 * far ahead: those 7 probes more than a whole bisection; points not in order do not gallop) */
#define GALLOP 64

/* A B-spline's values: out[E][r] = sum_j c[i-k+j][..] B_(i-k+j,k)(x[e]), j = 0..k, i the
 * interval of x (t_i <= x < t_(i+1), within k .. n-1: the ends' pieces beyond; n = nt-k-1
 * coefficients c[n][r]), the basis by Cox-de Boor's recursion; NaN outside t_k .. t_n where
 * not extrapolate. */
int hodyn_bspline(int64_t nt, const double *t, int k, int r, const double *c, int64_t E,
                  const double *x, int extrapolate, double *out) {
    return hodyn_bspline_jet(nt, t, k, 1, r, c, 0, E, x, extrapolate, out);
}

/* The spline and its first R - 1 derivatives at each x: out[E][R][r], derivative nu from
 * the coefficients c + nu * cstride (n - nu rows of r: those of the derivative's spline, of
 * degree k - nu on the knots t[nu .. nt - nu)). Each derivative's interval there is the
 * spline's less nu and its basis functions are those the spline's Cox-de Boor triangle has
 * after k - nu steps, made from the same knots in the same order: each value the same bits
 * as hodyn_bspline of that derivative's spline alone, the interval found and the triangle
 * made once for all of them (R = 1: hodyn_bspline). */
int hodyn_bspline_jet(int64_t nt, const double *t, int k, int R, int r, const double *c,
                      int64_t cstride, int64_t E, const double *x, int extrapolate,
                      double *out) {
    const int64_t n = nt - k - 1;
    if (k < 0 || k > 31 || n < k + 1 || r < 1 || E < 0 || R < 1 || R > k + 1
        || (R > 1 && cstride < (int64_t)n * r))
        return HK_SIZE;
    int64_t after = 0; /* the previous point's first knot beyond it */
    for (int64_t e = 0; e < E; e++) {
        const double xe = x[e];
        int64_t lo = 0, hi = nt; /* the first knot > xe: searchsorted(t, x, "right") */
        if (e > 0 && xe >= x[e - 1]) {
            /* points in order (as the callers' grids are): it is at or after the previous
               point's, so galloping from there brackets it in a few steps; every knot before
               lo is <= xe and the knot at hi (or the end) beyond it, and the bisection below
               finds the same knot as over the whole (the knots do not decrease): the same
               interval, the same numbers; bisecting the whole grid for each point was most
               of the evaluation (a branch mispredicted at each of its ~19 steps) */
            int64_t step = 1;
            lo = hi = after;
            while (hi < nt && t[hi] <= xe) {
                lo = hi + 1;
                hi = after + step;
                step <<= 1;
                if (hi > nt || step > GALLOP) hi = nt; /* (far: bisect the rest) */
            }
        }
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (t[mid] <= xe) lo = mid + 1; else hi = mid;
        }
        after = lo;
        int64_t i = lo - 1;
        if (i < k) i = k;
        if (i > n - 1) i = n - 1;
        const int outside = !extrapolate && !(xe >= t[k] && xe <= t[n]);
        double B[32];
        B[0] = 1.0;
        for (int s = 0; s <= k; s++) {
            if (s) {
                double saved = 0.0;
                for (int j = 0; j < s; j++) {
                    const double left = t[i + j + 1] - xe, right = xe - t[i + j + 1 - s];
                    const double term = B[j] / (left + right);
                    B[j] = saved + left * term;
                    saved = right * term;
                }
                B[s] = saved;
            }
            const int nu = k - s; /* (degree s: the nu-th derivative's basis, its interval
                                     i - nu on its knots, its coefficients from i - k) */
            if (nu >= R) continue;
            double *o = out + (e * R + nu) * r;
            if (outside) {
                for (int a = 0; a < r; a++) o[a] = NAN;
                continue;
            }
            const double *cn = c + nu * cstride;
            for (int a = 0; a < r; a++) o[a] = 0.0;
            for (int j = 0; j <= s; j++) {
                const double *cj = cn + (i - k + j) * r;
                for (int a = 0; a < r; a++) o[a] = o[a] + B[j] * cj[a];
            }
        }
    }
    return HK_OK;
}
