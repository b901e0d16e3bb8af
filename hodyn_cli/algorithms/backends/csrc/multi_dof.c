/* The body-fixed inverse dynamics of a tree with multi-DOF joints (body_fixed.py is the
 * reference, "Multi-DOF joints"). A 1-DOF joint's body runs the passes of passes.c; a
 * spherical, planar or free joint's body i moves by its pose J_i (core/model.py's
 * joint_pose) with the joint twist P_i = S_i nu_i, S_i constant in the child frame, so
 * d/dt Ad_{C_{i,p}} = -ad_{P_i} Ad_{C_{i,p}} and passes.c's tables hold with ad_{P_i^(j)}
 * (per sample) in place of q_i^(j+1) ad_{X_i}:
 *   Ad_{C_{i,p}} = Ad_{J_i^-1} Ad_{B_i^-1}
 *   a[k][m] = a[k-1][m+1] - sum_j C(k-1,j) ad_{P^(j)} a[k-1-j][m],  V^(k) = a[k][0] + P^(k)
 *   b[k][m] = b[k-1][m+1] - sum_j C(m,j) ad*_{P^(j)} b[k-1][m-j],   tau^(k) = S^T F^(k) */
#include "kernel.h"

/* P = S nu of a multi-DOF joint (S: core/model.py's subspaces): spherical (omega; 0), free
 * nu itself, planar with X = (n; u): (n nu_2; u nu_0 + (n x u) nu_1) */
static void joint_twist(int kind, const double *X, const vd *nu, vd *P) {
    if (kind == HJ_FREE) {
        for (int e = 0; e < 6; e++) P[e] = nu[e];
    } else if (kind == HJ_SPHERICAL) {
        for (int e = 0; e < 3; e++) { P[e] = nu[e]; P[3 + e] = (vd){0}; }
    } else {
        const double *n = X, *u = X + 3;
        const double w[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2],
                             n[0] * u[1] - n[1] * u[0]};
        for (int e = 0; e < 3; e++) { P[e] = n[e] * nu[2]; P[3 + e] = u[e] * nu[0] + w[e] * nu[1]; }
    }
}

/* tau = S^T F (nv numbers) */
static void joint_torque(int kind, const double *X, const vd *F, vd *tau) {
    if (kind == HJ_FREE || kind == HJ_SPHERICAL) {
        for (int e = 0; e < hk_joint_dofs(kind); e++) tau[e] = F[e];
    } else {
        const double *n = X, *u = X + 3;
        const double w[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2],
                             n[0] * u[1] - n[1] * u[0]};
        tau[0] = u[0] * F[3] + u[1] * F[4] + u[2] * F[5];
        tau[1] = w[0] * F[3] + w[1] * F[4] + w[2] * F[5];
        tau[2] = n[0] * F[0] + n[1] * F[1] + n[2] * F[2];
    }
}

/* Ad_{J^-1} = [[R^T, 0], [-R^T skew(p), R^T]] of the joint's pose J = (R, p) at its
 * configuration coordinates c (lanes): spherical R = exp(skew(r)) (Rodrigues, its
 * coefficients by their series below |r| = 1e-4, as lie.rotation_vector_exp), p = 0; free
 * (r; p); planar (x, y, theta): R = exp(theta skew(n)), p = x u + y (n x u) */
static void joint_pose_adjoint(int kind, const double *X, const vd *c, AdjointV *A) {
    vd R[9], p[3];
    if (kind == HJ_PLANAR) {
        const double *n = X, *u = X + 3;
        const double w[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2],
                             n[0] * u[1] - n[1] * u[0]};
        const double N[9] = {0, -n[2], n[1], n[2], 0, -n[0], -n[1], n[0], 0};
        vd s, k;
        for (int l = 0; l < LANES; l++) { s[l] = sin(c[2][l]); k[l] = 1.0 - cos(c[2][l]); }
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) {
                double N2 = 0;
                for (int e = 0; e < 3; e++) N2 += N[3 * r + e] * N[3 * e + col];
                R[3 * r + col] = (double)(r == col) + s * N[3 * r + col] + k * N2;
            }
        for (int e = 0; e < 3; e++) p[e] = c[0] * u[e] + c[1] * w[e];
    } else {
        vd a, b;
        for (int l = 0; l < LANES; l++) {
            const double t2 = c[0][l] * c[0][l] + c[1][l] * c[1][l] + c[2][l] * c[2][l];
            const double t = sqrt(t2);
            a[l] = t < 1e-4 ? 1.0 - t2 / 6.0 : sin(t) / t;
            b[l] = t < 1e-4 ? 0.5 - t2 / 24.0 : (1.0 - cos(t)) / t2;
        }
        const vd W[9] = {(vd){0}, -c[2], c[1], c[2], (vd){0}, -c[0], -c[1], c[0], (vd){0}};
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) {
                vd W2 = (vd){0};
                for (int e = 0; e < 3; e++) W2 += W[3 * r + e] * W[3 * e + col];
                R[3 * r + col] = (double)(r == col) + a * W[3 * r + col] + b * W2;
            }
        for (int e = 0; e < 3; e++) p[e] = kind == HJ_FREE ? c[3 + e] : (vd){0};
    }
    const vd S[9] = {(vd){0}, -p[2], p[1], p[2], (vd){0}, -p[0], -p[1], p[0], (vd){0}};
    for (int r = 0; r < 3; r++)
        for (int col = 0; col < 3; col++) {
            vd acc = (vd){0};
            for (int e = 0; e < 3; e++) acc += R[3 * e + r] * S[3 * e + col];
            A->R[3 * r + col] = R[3 * col + r];
            A->P[3 * r + col] = -acc;
        }
}

/* Body i's Ad[i] and twist jet V[i][K1][6] from its parent's (or base), its configuration
 * coordinates cfg and its joint twist's jet P[K1][6] */
static void forward_body(const Consts *c, int i, int K1, const vd *cfg, const vd *P,
                         const vd *base, AdjointV *Ad, vd *V) {
    const int p = c->m->parent[i];
    const Adjoint *B0 = &c->B[3 * i];
    AdjointV J, B;
    for (int e = 0; e < 9; e++) { B.R[e] = (vd){0} + B0->R[e]; B.P[e] = (vd){0} + B0->P[e]; }
    joint_pose_adjoint(c->m->kind[i], c->m->X + 6 * i, cfg, &J);
    hk_compose(&J, &B, &Ad[i]);
    const vd *in = p < 0 ? base : V + (size_t)6 * K1 * p;
    vd a[K1][K1][6], t[6];
    for (int m = 0; m < K1; m++) vad_apply(&Ad[i], in + 6 * m, a[0][m]);
    for (int k = 1; k < K1; k++)
        for (int m = 0; m + k < K1; m++) {
            for (int e = 0; e < 6; e++) a[k][m][e] = a[k - 1][m + 1][e];
            for (int j = 0; j < k; j++) {
                vad(P + 6 * j, a[k - 1 - j][m], t);
                for (int e = 0; e < 6; e++) a[k][m][e] -= BINOM[k - 1][j] * t[e];
            }
        }
    vd *Vi = V + (size_t)6 * K1 * i;
    for (int k = 0; k < K1; k++)
        for (int e = 0; e < 6; e++) Vi[6 * k + e] = a[k][0][e] + P[6 * k + e];
}

/* d^k/dt^k (Ad_{C_{i,p}}^T y(t)), k < r1, added to out[r1][6], for the joint twist's jet P */
static void transport_up(const AdjointV *Ad, const vd *P, const vd *in, int r1, vd *out) {
    vd b[r1][r1][6], t[6];
    for (int m = 0; m < r1; m++)
        for (int e = 0; e < 6; e++) b[0][m][e] = in[6 * m + e];
    for (int k = 0; k < r1; k++) {
        if (k > 0)
            for (int m = 0; m + k < r1; m++) {
                for (int e = 0; e < 6; e++) b[k][m][e] = b[k - 1][m + 1][e];
                for (int j = 0; j <= m; j++) {
                    vcoad(P + 6 * j, b[k - 1][m - j], t);
                    for (int e = 0; e < 6; e++) b[k][m][e] -= BINOM[m][j] * t[e];
                }
            }
        vadT_apply(Ad, b[k][0], t);
        for (int e = 0; e < 6; e++) out[6 * k + e] += t[e];
    }
}

int hk_body_fixed_multi(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                        int order, const double *base, int64_t base_rows, const double *W,
                        double *out, double *Vout, double *F0out) {
    const int n = m->n, nv = m->dof[n], K1 = order + 2, r1 = order + 1, D3 = order + 3;
    const int32_t *dof = m->dof;
    int status = HK_OK;
    vd h[K1][6];
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *G = hk_alloc(sizeof(vd) * D3 * nv), *Q = hk_alloc(sizeof(vd) * D3 * n);
    vd *P = hk_alloc(sizeof(vd) * 6 * K1 * n), *V = hk_alloc(sizeof(vd) * 6 * K1 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * r1 * n), *tau = hk_alloc(sizeof(vd) * r1 * nv);
    vd *bv = hk_alloc(sizeof(vd) * 6 * K1), *F0 = hk_alloc(sizeof(vd) * 6 * r1);
    AdjointV *Ad = hk_alloc(sizeof(AdjointV) * n);
    if (!G || !Q || !P || !V || !F || !tau || !bv || !F0 || !Ad) { status = HK_NOMEM; goto done; }
    memset(Q, 0, sizeof(vd) * D3 * n);  /* a multi-DOF body's entries: never read */
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 6 * K1, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(qs, qstride, lane_s, (int64_t)D3 * nv, G);  /* G[k * nv + dof] */
        if (base_rows > 1) hk_gather(base, 6 * K1, lane_s, 6 * K1, bv);
        for (int i = 0; i < n; i++) {  /* forward */
            const int kind = m->kind[i];
            if (hk_joint_dofs(kind) == 1) {
                for (int k = 0; k < D3; k++) Q[k * n + i] = G[k * nv + dof[i]];
                hk_forward_body(&c, i, K1, Q, bv, Ad, V);
                continue;
            }
            vd *Pi = P + (size_t)6 * K1 * i;
            for (int j = 0; j < K1; j++)
                joint_twist(kind, m->X + 6 * i, G + (j + 1) * nv + dof[i], Pi + 6 * j);
            forward_body(&c, i, K1, G + dof[i], Pi, bv, Ad, V);
        }
        if (Vout) hk_scatter(V, 6 * K1 * n, s0, N, 6 * K1 * n, Vout);
        hk_lane_wrenches(W, n, r1, lane_s, F);
        for (int i = n - 1; i >= 0; i--) {  /* backward */
            const int kind = m->kind[i], p = m->parent[i];
            const double *X = m->X + 6 * i;
            vd *Fi = F + (size_t)6 * r1 * i;
            hk_momentum_rates(&c.In[i], V + (size_t)6 * K1 * i, r1, h, Fi);
            for (int k = 0; k < r1; k++) {
                if (hk_joint_dofs(kind) == 1) tau[k * nv + dof[i]] = cdot6(X, Fi + 6 * k);
                else joint_torque(kind, X, Fi + 6 * k, tau + k * nv + dof[i]);
            }
            if (p < 0) continue;
            if (hk_joint_dofs(kind) == 1) hk_transport_up(&c, i, Q, &Ad[i], Fi, r1, F + (size_t)6 * r1 * p);
            else transport_up(&Ad[i], P + (size_t)6 * K1 * i, Fi, r1, F + (size_t)6 * r1 * p);
        }
        for (int k = 0; k < r1; k++)
            hk_scatter(tau + k * nv, nv, s0, N, nv, out + (size_t)k * N * nv);
        if (F0out) {  /* the root's wrench (hk_root_wrench) */
            memset(F0, 0, sizeof(vd) * 6 * r1);
            hk_momentum_rates(&c.In0, bv, r1, h, F0);
            for (int i = 0; i < n; i++) {
                if (m->parent[i] >= 0) continue;
                const vd *Fi = F + (size_t)6 * r1 * i;
                if (hk_joint_dofs(m->kind[i]) == 1) hk_transport_up(&c, i, Q, &Ad[i], Fi, r1, F0);
                else transport_up(&Ad[i], P + (size_t)6 * K1 * i, Fi, r1, F0);
            }
            hk_scatter(F0, 6 * r1, s0, N, 6 * r1, F0out);
        }
    }
done:
    free(G); free(Q); free(P); free(V); free(F); free(tau); free(bv); free(F0); free(Ad);
    hk_free_consts(&c);
    return status;
}
