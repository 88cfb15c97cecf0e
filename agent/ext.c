/* The extension's per-request side: conditions judged in the filter, budgets (hit cap, expiry,
 * rate, CPU quota), the JdwpdDisabled hit, and EXT_STATS.  Every function here but the executor
 * runs with the agent lock held (filter matching holds it), so the counters need nothing more. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ext.h"
#include "filters.h"

int64_t ext_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Counters of requests already gone (disabled, cleared): EXT_STATS still answers for a while. */
#define GRAVE 64
static struct {
    int32_t request_id;
    ext_req r;
} grave[GRAVE];
static int grave_next;

int ext_bind(filter *f) {
    ext_req *r = NULL;
    for (int i = 0; i < f->nmods; i++) {
        ext_obj *o = f->mods[i].ext;
        if (o == NULL) continue;
        if (r == NULL) {
            r = calloc(1, sizeof *r);
            if (r == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
            r->cpu_ppm = EXT_DEFAULT_CPU_PPM;
        }
        if (o->kind == XO_BUDGET) {
            r->hit_cap = o->hit_cap;
            r->rate = o->rate;
            r->cpu_ppm = o->cpu_ppm;
            r->expires_at_ns = o->expires_ms ? ext_now_ns() + o->expires_ms * 1000000 : 0;
        } else {
            r->budgeted = true;
            if (o->kind == XO_CAPTURE) r->capture = o->capture;
        }
    }
    if (r != NULL) {
        int64_t now = ext_now_ns();
        r->rate_last_ns = r->cpu_last_ns = now;
        r->rate_tokens_milli = (int64_t)r->rate * 1000;  /* a second's worth: a burst */
        r->cpu_tokens_ns = (int64_t)r->cpu_ppm * EXT_CPU_WINDOW_MS;  /* ppm x ms = ns */
    }
    f->ext = r;
    return 0;
}

void ext_unbind(filter *f) {
    if (f->ext == NULL) return;
    grave[grave_next].request_id = f->request_id;
    grave[grave_next].r = *f->ext;
    grave_next = (grave_next + 1) % GRAVE;
    free(f->ext);
    f->ext = NULL;
}

static bool disable(filter *f, int32_t reason) {
    if (f->ext->disabled == 0) f->ext->disabled = reason;
    f->expired = true;  /* filter_expire_pending takes it out, breakpoint and all */
    return false;
}

bool ext_before(filter *f) {
    ext_req *r = f->ext;
    if (r->disabled) return false;
    if (r->expires_at_ns && ext_now_ns() >= r->expires_at_ns) return disable(f, XD_EXPIRED);
    return true;
}

/* What a bucket gains since *last at `per_s` millionths per ns (ppm of ns, or thousandths of a hit
 * per ms), in whole units: *last moves on only by the time credited, so that frequent calls lose
 * nothing to rounding. */
static int64_t refill(int64_t *last, int64_t now, uint32_t per_million) {
    int64_t el = now - *last;
    if (el > 4000000000LL) {  /* more than the fullest bucket holds: no overflow below */
        *last = now - 4000000000LL;
        el = 4000000000LL;
    }
    if (per_million == 0 || el <= 0) return 0;
    int64_t add = el * per_million / 1000000;
    if (add > 0) *last += add * 1000000 / per_million;
    return add;
}

/* Charge work to the quota's bucket, which refills at cpu_ppm of the time that passes. */
static bool charge(filter *f, int64_t ns, int64_t now) {
    ext_req *r = f->ext;
    r->cost_ns += ns;
    if (!r->budgeted || r->cpu_ppm == 0) return true;
    int64_t cap = (int64_t)r->cpu_ppm * EXT_CPU_WINDOW_MS;
    r->cpu_tokens_ns += refill(&r->cpu_last_ns, now, r->cpu_ppm);  /* ns x ppm / 1e6 */
    if (r->cpu_tokens_ns > cap) r->cpu_tokens_ns = cap;
    r->cpu_tokens_ns -= ns;
    return r->cpu_tokens_ns >= 0 || disable(f, XD_CPU_QUOTA);
}

bool ext_condition(filter *f, ext_obj *o, ev_ctx *c) {
    ext_req *r = f->ext;
    if (r == NULL || o == NULL || o->kind != XO_CONDITION) return true;  /* budgets and captures filter nothing */
    int64_t t0 = ext_now_ns();
    ext_cell out;
    int st = c->thread ? ext_eval(c->env, o->prog, c->thread, c->method, &out) : XR_OTHER;
    int64_t t1 = ext_now_ns();
    r->evaluations++;
    bool yes = false;
    if (st) r->errors[st < 6 ? st : XR_OTHER]++;
    else if (out.t != 'I') r->errors[XR_TYPE]++;
    else yes = out.v.i != 0;
    if (yes) r->trues++;
    return charge(f, t1 - t0, t1) && yes;
}

bool ext_after_match(filter *f) {
    ext_req *r = f->ext;
    if (r->hit_cap && r->hits >= r->hit_cap) return disable(f, XD_HIT_CAP);
    if (r->rate) {
        /* rate hits per second = rate x 1000 thousandths of a hit per 1e9 ns = rate millionths per ns */
        r->rate_tokens_milli += refill(&r->rate_last_ns, ext_now_ns(), r->rate);
        if (r->rate_tokens_milli > (int64_t)r->rate * 1000) r->rate_tokens_milli = (int64_t)r->rate * 1000;
        if (r->rate_tokens_milli < 1000) return disable(f, XD_RATE);
        r->rate_tokens_milli -= 1000;
    }
    r->hits++;
    /* The event this hit sends costs the thread too: charged at its typical price. */
    if (!charge(f, EXT_EVENT_COST_NS, ext_now_ns())) return false;
    if (r->hit_cap && r->hits >= r->hit_cap) {
        f->expired = true;  /* the last hit goes out; the request says why it ends */
        r->disabled = XD_HIT_CAP;
    }
    return true;
}

bool ext_capture_hit(filter *f, ev_ctx *c, hits *h, uint8_t kind) {
    ext_req *r = f->ext;
    if (r == NULL || r->capture == NULL || c->thread == NULL || c->method == NULL) return false;
    int64_t t0 = ext_now_ns();
    hit_begin(h, f->request_id, EK_JDWPD_CAPTURE, f->suspend_policy);
    ob_location(&h->body, c->env, c->method, c->loc);
    ob_u8(&h->body, kind);
    size_t len_at = h->body.len;
    ob_u32(&h->body, 0);
    capture_write(c->env, r->capture, c->thread, c->method, c->loc, &h->body);
    ob_put_u32_at(&h->body, len_at, (uint32_t)(h->body.len - len_at - 4));
    int64_t t1 = ext_now_ns();
    charge(f, t1 - t0, t1);  /* over the quota: this capture still goes out, the request ends after it */
    return true;
}

void ext_report_disabled(filter *f, hits *h) {
    ext_req *r = f->ext;
    if (r == NULL || r->disabled == 0 || r->disabled_reported) return;
    r->disabled_reported = true;
    hit_begin(h, f->request_id, EK_JDWPD_DISABLED, SP_NONE);
    ob_u32(&h->body, (uint32_t)r->disabled);
}

/* ---- EXT_STATS ---------------------------------------------------------------------------- */

static void counter(outbuf *out, const char *name, int64_t v) {
    ob_str(out, name);
    ob_u64(out, (uint64_t)v);
}

static int x_ext_stats(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    int32_t id = ib_i32(in);
    PARSED(in);
    ext_req copy;
    memset(&copy, 0, sizeof copy);
    bool found = false;
    lock_enter();
    for (int k = 0; k < 128 && !found; k++)
        for (filter *f = filters_of((uint8_t)k); f && !found; f = f->next)
            if (f->request_id == id && f->ext) {
                copy = *f->ext;
                found = true;
            }
    for (int i = 0; i < GRAVE && !found; i++) {
        int at = (grave_next - 1 - i + 2 * GRAVE) % GRAVE;
        if (grave[at].request_id == id && id != 0) {
            copy = grave[at].r;
            found = true;
        }
    }
    lock_exit();
    if (!found) return LS_INVALID_ID;
    ob_u32(out, 10);
    counter(out, "evaluations", copy.evaluations);
    counter(out, "trues", copy.trues);
    counter(out, "null", copy.errors[XR_NULL]);
    counter(out, "index", copy.errors[XR_INDEX]);
    counter(out, "arithmetic", copy.errors[XR_ARITHMETIC]);
    counter(out, "type", copy.errors[XR_TYPE]);
    counter(out, "other", copy.errors[XR_OTHER]);
    counter(out, "cost_ns", copy.cost_ns);
    counter(out, "hits", copy.hits);
    counter(out, "disabled", copy.disabled);
    return 0;
}

executor_fn exec_ext_lookup(uint16_t kind) {
    return kind == LK_EXT_STATS ? x_ext_stats : NULL;
}
