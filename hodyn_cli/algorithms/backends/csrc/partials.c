/* d tau / d q and d tau / d qd of the inverse dynamics, O(n^2) per sample (partials.py is the
 * reference and has the derivation; tests/test_partials_kernel.py holds them to 1e-12), in
 * the same equations and order. All in the root frame; per body i with parent p (the root:
 * V = base[0], A = base[1], e.g. (0; -g)), Ai = Ad_{C_i}^-1 = Ad_{C_{i,p}} Ad_{C_p}^-1:
 *   S_i = Ad_{C_i} X_i,  V_i = V_p + S_i qd_i,  c_i = [V_p, S_i],  A_i = A_p + S_i qdd_i + c_i qd_i
 *   I_i = Ai^T M_i Ai,  h_i = I_i V_i,  B_i = ad_{V_i}^T I_i,  f_i = I_i A_i - ad*_{V_i} h_i + Ai^T W_i
 *   F, H, I^c, B: f, h, I, B summed over the subtree (B kept as B + B^T)
 *   a_k = [S_k, A_p] + [c_k, V_p],  Q_j = I^c_j S_j,  P_j = ad*_{S_j} H_j - (B_j + B_j^T) S_j
 *   u_k = -ad*_{S_k} F_k - ad*_{c_k} H_k - I^c_k a_k - (B_k + B_k^T) c_k
 *   w_k = 2 I^c_k c_k - (B_k + B_k^T) S_k - ad*_{S_k} H_k
 *   d tau_j/d q_k  = c_k . P_j - a_k . Q_j,    d tau_j/d qd_k = 2 c_k . Q_j + S_k . P_j  (k before j)
 *                  = S_j . u_k,                              = S_j . w_k            (j = k or before k)
 * and 0 where neither joint is on the other's path. The same sums give the mass matrix and
 * the torques (the composite-rigid-body algorithm in the root frame):
 *   M_jk = M_kj = S_k . I^c_j S_j  (k = j or before j),   tau_j = S_j . F_j */
#include "kernel.h"

/* y = S x for a symmetric 6x6 S (vd, row-major) */
static inline void symv(const vd *S, const vd *x, vd *y) {
    for (int r = 0; r < 6; r++) {
        const vd *s = S + 6 * r;
        y[r] = s[0] * x[0] + s[1] * x[1] + s[2] * x[2] + s[3] * x[3] + s[4] * x[4] + s[5] * x[5];
    }
}

/* qs: sample s's [D][n] at qs + s qstride (D >= 3: q, qd, qdd); base[base_rows][2][6]: the
 * root's twist and its rate; W[N][n][6] (or NULL): the wrench each body exerts on its environment, body frame.
 * Outputs, each NULL or [N][n][n] ([s][j][k] = d tau_j / d x_k), [N][n][n], [N][n]:
 * dq and dqd (both or neither), Mo the mass matrix, tau the joint torques. */
int hodyn_partials(const HModel *m, int64_t N, int D, const double *qs, int64_t qstride,
                   const double *base, int64_t base_rows, const double *W, double *dq,
                   double *dqd, double *Mo,
                   double *tau) {
    int status = hk_check(m, N, D, 3, 0, base_rows, qstride);
    if (status) return status;
    if (!dq != !dqd) return HK_SIZE;
    const int n = m->n, nq = 3 * n, partials = dq != NULL;
    const size_t nn = (size_t)n * n;
    Consts c;
    if (hk_consts(m, &c)) return HK_NOMEM;
    vd *Q = hk_alloc(sizeof(vd) * nq), *bv = hk_alloc(sizeof(vd) * 12);
    vd *S = hk_alloc(sizeof(vd) * 6 * n), *C = hk_alloc(sizeof(vd) * 6 * n);
    vd *V = hk_alloc(sizeof(vd) * 6 * n), *A = hk_alloc(sizeof(vd) * 6 * n);
    vd *F = hk_alloc(sizeof(vd) * 6 * n), *H = hk_alloc(sizeof(vd) * 6 * n);
    vd *I = hk_alloc(sizeof(vd) * 36 * n), *B = hk_alloc(sizeof(vd) * 36 * n);
    vd *a = hk_alloc(sizeof(vd) * 6 * n), *P = hk_alloc(sizeof(vd) * 6 * n);
    vd *Qj = hk_alloc(sizeof(vd) * 6 * n), *u = hk_alloc(sizeof(vd) * 6 * n);
    vd *w = hk_alloc(sizeof(vd) * 6 * n), *Wv = hk_alloc(sizeof(vd) * 6 * n);
    vd *out = hk_alloc(sizeof(vd) * (3 * nn + n));
    AdjointV *Ai = hk_alloc(sizeof(AdjointV) * n);
    if (!Q || !bv || !S || !C || !V || !A || !F || !H || !I || !B || !a || !P || !Qj || !u ||
        !w || !Wv || !out || !Ai) {
        status = HK_NOMEM;
        goto done;
    }
    int64_t lane_s[LANES] = {0};
    hk_gather(base, 0, lane_s, 12, bv);
    for (int64_t s0 = 0; s0 < N; s0 += LANES) {
        hk_lanes(s0, N, lane_s);
        hk_gather(qs, qstride, lane_s, nq, Q);
        if (base_rows > 1) hk_gather(base, 12, lane_s, 12, bv);
        if (W) hk_gather(W, 6 * n, lane_s, 6 * n, Wv);
        for (int i = 0; i < n; i++) {             /* forward: poses, screws, twists */
            const int p = m->parent[i];
            const double *X = m->X + 6 * i;
            const vd *Vp = p < 0 ? bv : V + 6 * p, *Ap = p < 0 ? bv + 6 : A + 6 * p;
            AdjointV *Aii = &Ai[i];
            if (p < 0) hk_joint_adjoint(&c, i, Q[i], Aii);
            else {
                AdjointV Ad;
                hk_joint_adjoint(&c, i, Q[i], &Ad);
                hk_compose(&Ad, &Ai[p], Aii);
            }
            vd *Si = S + 6 * i, *ci = C + 6 * i, *Vi = V + 6 * i, *Ai_ = A + 6 * i, t[6];
            hk_spatial_screw(Aii, X, Si);                                 /* S = Ad_{C_i} X */
            vad(Vp, Si, ci);
            const vd qd = Q[n + i], qdd = Q[2 * n + i];
            for (int e = 0; e < 6; e++) {
                Vi[e] = Vp[e] + Si[e] * qd;
                Ai_[e] = Ap[e] + Si[e] * qdd + ci[e] * qd;
            }
            vad(Si, Ap, a + 6 * i);                                       /* a_i */
            vad(ci, Vp, t);
            for (int e = 0; e < 6; e++) a[6 * i + e] += t[e];
            vd *Ii = I + 36 * i, *Bi = B + 36 * i, col[6], y[6], z[6];
            for (int e = 0; e < 6; e++) {                                 /* I = Ai^T M Ai */
                for (int r = 0; r < 3; r++) {                             /* column e of Ai */
                    col[r] = e < 3 ? Aii->R[3 * r + e] : (vd){0};
                    col[3 + r] = e < 3 ? Aii->P[3 * r + e] : Aii->R[3 * r + e - 3];
                }
                vinertia_apply(&c.In[i], col, y);
                vadT_apply(Aii, y, z);
                for (int r = 0; r < 6; r++) Ii[6 * r + e] = z[r];
            }
            for (int e = 0; e < 6 && partials; e++) {                     /* B = ad_V^T I */
                for (int r = 0; r < 6; r++) col[r] = Ii[6 * r + e];
                vcoad(Vi, col, z);
                for (int r = 0; r < 6; r++) Bi[6 * r + e] = z[r];
            }
            for (int r = 0; r < 6 && partials; r++) {                     /* B + B^T */
                for (int e = 0; e < r; e++) {
                    const vd sym = Bi[6 * r + e] + Bi[6 * e + r];
                    Bi[6 * r + e] = Bi[6 * e + r] = sym;
                }
                Bi[7 * r] += Bi[7 * r];
            }
            vd *Hi = H + 6 * i, *Fi = F + 6 * i;
            symv(Ii, Vi, Hi);
            symv(Ii, Ai_, Fi);
            vcoad(Vi, Hi, t);
            for (int e = 0; e < 6; e++) Fi[e] -= t[e];
            if (W) {
                vadT_apply(Aii, Wv + 6 * i, t);
                for (int e = 0; e < 6; e++) Fi[e] += t[e];
            }
        }
        for (int i = n - 1; i >= 0; i--) {        /* subtree sums, then the per-joint vectors */
            const vd *Si = S + 6 * i, *ci = C + 6 * i, *Ii = I + 36 * i, *Bi = B + 36 * i;
            const vd *Fi = F + 6 * i, *Hi = H + 6 * i;
            vd t[6], t2[6], *Pi = P + 6 * i, *Qi = Qj + 6 * i, *ui = u + 6 * i, *wi = w + 6 * i;
            const int p = m->parent[i];
            if (p >= 0) {
                for (int e = 0; e < 6; e++) { F[6 * p + e] += Fi[e]; H[6 * p + e] += Hi[e]; }
                for (int e = 0; e < 36; e++) I[36 * p + e] += Ii[e];
                for (int e = 0; e < 36 && partials; e++) B[36 * p + e] += Bi[e];
            }
            symv(Ii, Si, Qi);                                             /* Q = I^c S */
            if (!partials) continue;
            vcoad(Si, Hi, t);                                             /* ad*_S H */
            symv(Bi, Si, t2);
            for (int e = 0; e < 6; e++) { Pi[e] = t[e] - t2[e]; wi[e] = -t[e] - t2[e]; }
            symv(Ii, ci, t2);
            for (int e = 0; e < 6; e++) wi[e] += 2 * t2[e];
            vcoad(Si, Fi, t);
            for (int e = 0; e < 6; e++) ui[e] = -t[e];
            vcoad(ci, Hi, t);
            for (int e = 0; e < 6; e++) ui[e] -= t[e];
            symv(Ii, a + 6 * i, t);
            symv(Bi, ci, t2);
            for (int e = 0; e < 6; e++) ui[e] -= t[e] + t2[e];
        }
        if (dq && dqd) {
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++) {
                    vd *oq = out + (size_t)j * n + k, *od = out + nn + (size_t)j * n + k;
                    if (k != j && m->anc[(size_t)j * n + k]) {           /* k before j */
                        *oq = vdot6(C + 6 * k, P + 6 * j) - vdot6(a + 6 * k, Qj + 6 * j);
                        *od = 2 * vdot6(C + 6 * k, Qj + 6 * j) + vdot6(S + 6 * k, P + 6 * j);
                    } else if (m->anc[(size_t)k * n + j]) {               /* j = k or before k */
                        *oq = vdot6(S + 6 * j, u + 6 * k);
                        *od = vdot6(S + 6 * j, w + 6 * k);
                    } else {
                        *oq = *od = (vd){0};
                    }
                }
            hk_scatter(out, (int64_t)nn, s0, N, (int64_t)nn, dq);
            hk_scatter(out + nn, (int64_t)nn, s0, N, (int64_t)nn, dqd);
        }
        if (Mo) {
            vd *Mv = out + 2 * nn;
            for (int j = 0; j < n; j++)
                for (int k = 0; k <= j; k++)
                    Mv[(size_t)j * n + k] = Mv[(size_t)k * n + j] =
                        m->anc[(size_t)j * n + k] ? vdot6(S + 6 * k, Qj + 6 * j) : (vd){0};
            hk_scatter(Mv, (int64_t)nn, s0, N, (int64_t)nn, Mo);
        }
        if (tau) {
            vd *tv = out + 3 * nn;
            for (int j = 0; j < n; j++) tv[j] = vdot6(S + 6 * j, F + 6 * j);
            hk_scatter(tv, n, s0, N, n, tau);
        }
    }
done:
    free(Q); free(bv); free(S); free(C); free(V); free(A); free(F); free(H); free(I); free(B);
    free(a); free(P); free(Qj); free(u); free(w); free(Wv); free(out); free(Ai);
    hk_free_consts(&c);
    return status;
}
