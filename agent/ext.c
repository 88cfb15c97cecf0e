/* The extension's per-request side: conditions judged in the filter, budgets (hit cap, expiry,
 * rate, CPU quota), the JdwpdDisabled hit, captures in flight, and EXT_STATS.  Every counter is
 * changed with the agent lock held (filter matching holds it).  A capture is matched under the
 * lock and read outside it (ext_captures_run): its request is reference-counted, and whether the
 * request is still there is checked under the lock when the capture is queued. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "buf.h"
#include "capture.h"
#include "catch_filter.h"
#include "cond.h"
#include "cond_parse.h"
#include "ext.h"
#include "filter_list.h"
#include "hits.h"
#include "link.h"
#include "values.h"

/* Requests already gone (disabled, cleared): EXT_STATS still answers for a while.  Each slot holds
 * a reference, so a capture still in flight counts into what EXT_STATS answers. */
#define GRAVE 64
static struct {
    int32_t request_id;
    ext_req *r;
} grave[GRAVE];
static int grave_next;

/* Lock held (re-entrant: taken again here for the callers that hold none). */
static void req_release(JNIEnv *env, ext_req *r) {
    if (r == NULL) return;
    base_lock_enter();
    bool last = --r->refs == 0;
    base_lock_exit();
    if (!last) return;
    cond_parse_capture_release(env, r->capture);
    free(r);
}

int ext_bind(filter *f) {
    ext_req *r = NULL;
    for (int i = 0; i < f->nmods; i++) {
        ext_obj *o = f->mods[i].ext;
        if (o == NULL) continue;
        if (r == NULL) {
            r = calloc(1, sizeof *r);
            if (r == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
            r->cpu_ppm = EXT_DEFAULT_CPU_PPM;
            r->refs = 1;  /* the filter's */
            r->filter = f;
        }
        if (o->kind == XO_BUDGET) {
            r->hit_cap = o->hit_cap;
            r->rate = o->rate;
            r->cpu_ppm = o->cpu_ppm;
            r->stop_on_error = (o->flags & BF_STOP_ON_ERROR) != 0;
            r->expires_at_ns = o->expires_ms ? base_now_ns() + o->expires_ms * 1000000 : 0;
        } else if (o->kind != XO_CATCH) {  /* a catch filter is as cheap as a class pattern: no quota */
            r->budgeted = true;
            if (o->kind == XO_CAPTURE && r->capture == NULL) {
                r->capture = o->capture;  /* not yet shared: the filter is not installed */
                r->capture->refs++;
            }
        }
    }
    if (r != NULL) {
        int64_t now = base_now_ns();
        r->rate_last_ns = r->cpu_last_ns = now;
        r->rate_tokens_milli = (int64_t)r->rate * 1000;  /* a second's worth: a burst */
        r->cpu_tokens_ns = (int64_t)r->cpu_ppm * EXT_CPU_WINDOW_MS;  /* ppm x ms = ns */
    }
    f->ext = r;
    return 0;
}

void ext_unbind(JNIEnv *env, filter *f) {
    ext_req *r = f->ext;
    if (r == NULL) return;
    base_lock_enter();
    r->gone = true;
    r->cleared = !f->expired;  /* an expired request's last hit still goes out */
    r->filter = NULL;
    ext_req *old = grave[grave_next].r;
    grave[grave_next].request_id = f->request_id;
    grave[grave_next].r = r;  /* the filter's reference moves here */
    grave_next = (grave_next + 1) % GRAVE;
    base_lock_exit();
    f->ext = NULL;
    req_release(env, old);
}

static bool disable_req(ext_req *r, int32_t reason) {
    if (r->disabled == 0) r->disabled = reason;
    if (r->filter) r->filter->expired = true;  /* filters_expire_pending takes it out, breakpoint and all */
    return false;
}

static bool disable(filter *f, int32_t reason) { return disable_req(f->ext, reason); }

bool ext_before(filter *f) {
    ext_req *r = f->ext;
    if (r->disabled) return false;
    if (r->expires_at_ns && base_now_ns() >= r->expires_at_ns) return disable(f, XD_EXPIRED);
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
static bool charge_req(ext_req *r, int64_t ns, int64_t now) {
    r->cost_ns += ns;
    if (!r->budgeted || r->cpu_ppm == 0) return true;
    int64_t cap = (int64_t)r->cpu_ppm * EXT_CPU_WINDOW_MS;
    r->cpu_tokens_ns += refill(&r->cpu_last_ns, now, r->cpu_ppm);  /* ns x ppm / 1e6 */
    if (r->cpu_tokens_ns > cap) r->cpu_tokens_ns = cap;
    r->cpu_tokens_ns -= ns;
    return r->cpu_tokens_ns >= 0 || disable_req(r, XD_CPU_QUOTA);
}

static bool charge(filter *f, int64_t ns, int64_t now) { return charge_req(f->ext, ns, now); }

/* A catch filter on an exception event (other events pass): counted in RequestStats as a condition
 * is, evaluations the caught throws judged, trues those that passed. */
static bool catch_condition(ext_req *r, ext_obj *o, ev_ctx *c) {
    if (c->exception == NULL || c->catch_method == NULL) return true;
    r->evaluations++;
    bool yes = catch_filter_passes(o->catches, c->env, c->catch_method);
    if (yes) r->trues++;
    return yes;
}

bool ext_condition(filter *f, ext_obj *o, ev_ctx *c) {
    ext_req *r = f->ext;
    if (r != NULL && o != NULL && o->kind == XO_CATCH) return catch_condition(r, o, c);
    if (r == NULL || o == NULL || o->kind != XO_CONDITION) return true;  /* budgets and captures filter nothing */
    int64_t t0 = base_now_ns();
    ext_cell out;
    ext_frame at = {c->thread, c->method, c->loc, c->live, {0, 0, 0}, c->slots};
    int st = c->thread ? cond_eval(c->env, o->prog, &at, &out) : XR_OTHER;
    r->locals_walked += at.reads.walked;
    r->locals_by_jvmti += at.reads.by_jvmti;
    r->locals_in_frame += at.reads.in_frame;
    int64_t walk_ns = 0;  /* the walk before matching: the quota of the first condition it served */
    if ((at.reads.walked || at.reads.in_frame) && c->live && !c->live->charged) {  /* a walk read them or learned the slots */
        walk_ns = c->live->cost_ns;
        c->live->charged = true;
    }
    int64_t t1 = base_now_ns();
    r->evaluations++;
    bool yes = false;
    if (!st && out.t != 'I') st = XR_TYPE;
    if (st) r->errors[st < 6 ? st : XR_OTHER]++;
    else yes = out.v.i != 0;
    if (yes) r->trues++;
    r->failed_now = st && r->stop_on_error ? (st < 6 ? st : XR_OTHER) : 0;
    if (r->failed_now) yes = true;  /* reported as a hit, its reason before it (ext_report_failure) */
    return charge(f, t1 - t0 + walk_ns, t1) && yes;
}

bool ext_after_match(filter *f) {
    ext_req *r = f->ext;
    if (r->hit_cap && r->hits >= r->hit_cap) return disable(f, XD_HIT_CAP);
    if (r->rate) {
        /* rate hits per second = rate x 1000 thousandths of a hit per 1e9 ns = rate millionths per ns */
        r->rate_tokens_milli += refill(&r->rate_last_ns, base_now_ns(), r->rate);
        if (r->rate_tokens_milli > (int64_t)r->rate * 1000) r->rate_tokens_milli = (int64_t)r->rate * 1000;
        if (r->rate_tokens_milli < 1000) return disable(f, XD_RATE);
        r->rate_tokens_milli -= 1000;
    }
    r->hits++;
    /* The event this hit sends costs the thread too: charged at its typical price. */
    if (!charge(f, EXT_EVENT_COST_NS, base_now_ns())) return false;
    if (r->hit_cap && r->hits >= r->hit_cap) {
        f->expired = true;  /* the last hit goes out; the request says why it ends */
        r->disabled = XD_HIT_CAP;
    }
    return true;
}

/* The old way, for an event with more captures than a hits holds: read under the lock. */
static void capture_inline(filter *f, ev_ctx *c, hits *h) {
    int64_t t0 = base_now_ns();
    size_t len_at = h->body.len;
    buf_out_u32(&h->body, 0);
    ext_local_reads reads = {0, 0, 0};
    capture_write(c->env, f->ext->capture, c->thread, c->method, c->loc, false, false, &reads, &h->body);
    f->ext->locals_walked += reads.walked;
    f->ext->locals_by_jvmti += reads.by_jvmti;
    f->ext->locals_in_frame += reads.in_frame;
    buf_out_put_u32_at(&h->body, len_at, (uint32_t)(h->body.len - len_at - 4));
    int64_t t1 = base_now_ns();
    charge(f, t1 - t0, t1);  /* over the quota: this capture still goes out, the request ends after it */
}

bool ext_capture_hit(filter *f, ev_ctx *c, hits *h, uint8_t kind) {
    ext_req *r = f->ext;
    if (r == NULL || r->capture == NULL || c->thread == NULL || c->method == NULL) return false;
    size_t hit_at = h->body.len;
    /* the failure said just before, if any, is taken out with the capture if it is dropped */
    bool after_failure = h->failure_request == f->request_id && h->failure_request != 0;
    if (after_failure) hit_at = h->failure_at;
    h->failure_request = 0;
    hits_begin(h, f->request_id, EK_JDWPD_CAPTURE, f->suspend_policy);
    values_out_location(&h->body, c->env, c->method, c->loc);
    buf_out_u8(&h->body, kind);
    if (h->ncaps >= HITS_MAX_CAPTURES || h->caps_run) {
        capture_inline(f, c, h);
        return true;
    }
    cap_pending *p = &h->caps[h->ncaps++];
    memset(p, 0, sizeof *p);
    p->hit_at = hit_at;
    p->after_failure = after_failure;
    p->at = h->body.len;
    p->r = r;
    r->refs++;
    p->generation = link_generation();
    p->state = CP_PENDING;
    h->cap_thread = c->thread;
    h->cap_method = c->method;
    h->cap_loc = c->loc;
    return true;
}

/* The blobs go in at their places; hits whose capture was dropped or whose request went come out.
 * The new body is made at its final size, once. */
static void splice(hits *h, const outbuf *blobs) {
    size_t size = h->body.len;
    for (int i = 0; i < h->ncaps; i++) {
        cap_pending *p = &h->caps[i];
        if (p->state == CP_WRITTEN) size += 4 + p->blob_len;
        else size -= p->at - p->hit_at;
    }
    outbuf nb;
    buf_out_init(&nb, size ? size : 1);
    size_t from = 0;
    for (int i = 0; i < h->ncaps; i++) {
        cap_pending *p = &h->caps[i];
        if (p->state == CP_WRITTEN) {
            buf_out_bytes(&nb, h->body.data + from, p->at - from);
            buf_out_u32(&nb, (uint32_t)p->blob_len);
            buf_out_bytes(&nb, blobs->data + p->blob_at, p->blob_len);
        } else {
            buf_out_bytes(&nb, h->body.data + from, p->hit_at - from);
            h->count--;
            if (p->after_failure) {  /* its JdwpdConditionError goes too */
                h->count--;
                h->nfailures--;
            }
        }
        from = p->at;
    }
    buf_out_bytes(&nb, h->body.data + from, h->body.len - from);
    buf_out_free(&h->body);
    h->body = nb;
}

bool ext_captures_run(JNIEnv *env, thread_rec *t, hits *h) {
    if (h->ncaps == 0 || h->caps_run) return false;
    h->caps_run = true;
    outbuf local = {NULL, 0, 0, false};
    outbuf *blobs = t != NULL ? &t->capture : &local;  /* a thread's buffer is kept for its next capture */
    blobs->len = 0;
    blobs->oom = false;
    int64_t cost[HITS_MAX_CAPTURES] = {0};
    ext_local_reads reads[HITS_MAX_CAPTURES];
    memset(reads, 0, sizeof reads);
    /* No lock: every other thread's events, and the link's reader, go on meanwhile.  What the
     * capture reads (its spec, its watches' programs) lives while the reference held does. */
    for (int i = 0; i < h->ncaps; i++) {
        cap_pending *p = &h->caps[i];
        if (link_queue_full()) {  /* the daemon is behind: this capture is dropped, not waited for */
            p->state = CP_DROPPED;
            continue;
        }
        int64_t t0 = base_now_ns();
        p->blob_at = blobs->len;
        capture_write(env, p->r->capture, h->cap_thread, h->cap_method, h->cap_loc, true, h->at_breakpoint,
                      &reads[i], blobs);
        p->blob_len = blobs->len - p->blob_at;
        cost[i] = base_now_ns() - t0;
        p->state = CP_WRITTEN;
    }
    if (blobs->oom)
        for (int i = 0; i < h->ncaps; i++)
            if (h->caps[i].state == CP_WRITTEN) h->caps[i].state = CP_DROPPED;
    base_lock_enter();
    bool expired = false;
    int64_t now = base_now_ns();
    uint64_t generation = link_generation();
    for (int i = 0; i < h->ncaps; i++) {
        cap_pending *p = &h->caps[i];
        ext_req *r = p->r;
        if ((r->gone && r->cleared) || p->generation != generation) {
            p->state = CP_GONE;  /* cleared, or the link it matched for is lost: nobody wants it */
            continue;
        }
        r->locals_walked += reads[i].walked;
        r->locals_by_jvmti += reads[i].by_jvmti;
        r->locals_in_frame += reads[i].in_frame;
        if (p->state == CP_DROPPED) r->dropped++;
        /* over the quota: this capture still goes out, the request ends after it */
        else charge_req(r, cost[i], now);
        if (r->filter != NULL) {
            if (r->disabled && !r->disabled_reported) ext_report_disabled(r->filter, h);
            expired |= r->filter->expired;
        }
    }
    base_lock_exit();
    splice(h, blobs);
    buf_out_free(&local);
    return expired;
}

void ext_captures_release(JNIEnv *env, hits *h) {
    if (h->ncaps == 0) return;
    base_lock_enter();
    for (int i = 0; i < h->ncaps; i++) {
        cap_pending *p = &h->caps[i];
        if (h->caps_refused && p->state == CP_WRITTEN) p->r->dropped++;
        req_release(env, p->r);
        p->r = NULL;
    }
    h->ncaps = 0;
    base_lock_exit();
}

void ext_report_failure(filter *f, bool matched, ev_ctx *c, hits *h) {
    ext_req *r = f->ext;
    if (r == NULL || r->failed_now == 0) return;
    if (matched) {
        h->failure_at = h->body.len;
        h->failure_request = f->request_id;
        hits_begin(h, f->request_id, EK_JDWPD_CONDITION_ERROR, SP_NONE);
        values_out_location(&h->body, c->env, c->method, c->loc);
        buf_out_u32(&h->body, (uint32_t)r->failed_now);
        h->nfailures++;
    }
    r->failed_now = 0;
}

void ext_report_disabled(filter *f, hits *h) {
    ext_req *r = f->ext;
    if (r == NULL || r->disabled == 0 || r->disabled_reported) return;
    r->disabled_reported = true;
    hits_begin(h, f->request_id, EK_JDWPD_DISABLED, SP_NONE);
    buf_out_u32(&h->body, (uint32_t)r->disabled);
}

/* ---- EXT_STATS ---------------------------------------------------------------------------- */

static void counter(outbuf *out, const char *name, int64_t v) {
    buf_out_str(out, name);
    buf_out_u64(out, (uint64_t)v);
}

int ext_ext_stats(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    int32_t id = buf_in_i32(in);
    PARSED(in);
    ext_req copy;
    memset(&copy, 0, sizeof copy);
    bool found = false;
    base_lock_enter();
    for (int k = 0; k < 128 && !found; k++)
        for (filter *f = filter_list_of((uint8_t)k); f && !found; f = f->next)
            if (f->request_id == id && f->ext) {
                copy = *f->ext;
                found = true;
            }
    for (int i = 0; i < GRAVE && !found; i++) {
        int at = (grave_next - 1 - i + 2 * GRAVE) % GRAVE;
        if (grave[at].request_id == id && id != 0 && grave[at].r != NULL) {
            copy = *grave[at].r;
            found = true;
        }
    }
    base_lock_exit();
    if (!found) return LS_INVALID_ID;
    buf_out_u32(out, 14);
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
    counter(out, "dropped", copy.dropped);
    counter(out, "locals_walked", copy.locals_walked);
    counter(out, "locals_by_jvmti", copy.locals_by_jvmti);
    counter(out, "locals_in_frame", copy.locals_in_frame);
    return 0;
}
