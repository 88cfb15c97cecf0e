/* jdwpd's extension in the agent: condition programs run in the event callback, budgets per
 * request (docs/extensions.md, protocol/agent_code.py).  Conditions on the event path work on
 * memory made when the request was set: no allocation, no lock of their own (the agent lock, which
 * matching already holds, guards every counter).  Captures are read after the lock is let go, into
 * the thread's own buffer; their request is reference-counted meanwhile. */
#ifndef JDWPD_EXT_H
#define JDWPD_EXT_H

#include "base.h"
#include "buf.h"
#include "cond_parse.h"
#include "filter_list.h"
#include "hits.h"

/* Per-request state, made at SET_REQUEST when any modifier names an extension object. */
typedef struct ext_req {
    int64_t evaluations, trues, errors[6], cost_ns, hits;
    uint32_t hit_cap, rate, cpu_ppm;
    int64_t expires_at_ns;      /* monotonic; 0: never */
    int64_t rate_tokens_milli;  /* rate bucket, in thousandths of a hit */
    int64_t rate_last_ns;
    int64_t cpu_tokens_ns;      /* quota bucket */
    int64_t cpu_last_ns;
    int32_t disabled;           /* XD_* once over budget */
    bool stop_on_error;         /* a condition that fails is a hit, said with a JdwpdConditionError */
    int32_t failed_now;         /* the reason of the failure the match under way counted as true */
    bool disabled_reported;
    bool budgeted;              /* a condition or a capture: the quota applies */
    ext_capture *capture;       /* a reference of its own */
    int64_t dropped;            /* captures dropped: the link's queue was full */
    int64_t locals_walked, locals_by_jvmti;  /* RequestStats: how locals were read (live.h) */
    int64_t locals_in_frame;                 /* ... and read in place (slots.h) */
    /* Lifetime (agent lock): the filter, the grave and every capture in flight hold a reference.
     * A capture read outside the lock finds here, when it is queued, whether the request is still
     * there (gone: its filter was freed; cleared: by the daemon, not by its own budget or count). */
    int32_t refs;
    bool gone, cleared;
    struct filter *filter;      /* while !gone */
} ext_req;

/* Filters (filters.c calls these, lock held). */
struct filter;
struct ev_ctx;
struct hits;
int ext_bind(struct filter *f);              /* after the modifiers parsed: f->ext made if needed */
void ext_unbind(JNIEnv *env, struct filter *f);  /* before the filter is freed: its counters kept a while */
bool ext_before(struct filter *f);           /* expiry; false: the request is disabled now */
bool ext_condition(struct filter *f, ext_obj *o, struct ev_ctx *c);
bool ext_after_match(struct filter *f);      /* hit cap and rate; false: disabled, no hit */
/* A filter with a capture: writes the head of its JdwpdCapture hit in place of the event's (true),
 * else false.  The capture itself is read later, outside the lock (ext_captures_run). */
bool ext_capture_hit(struct filter *f, struct ev_ctx *c, struct hits *h, uint8_t kind);
/* Without the agent lock: reads the captures h holds (dropping them, counted, while the link's
 * queue is full), then under the lock charges them and takes out those whose request went, and
 * splices the blobs into h's body.  Idempotent; filters_hits_send_raw calls it.  True when a request
 * expired by it (its quota or hit cap): the caller takes it out (filters_expire_pending). */
struct thread_rec;
bool ext_captures_run(JNIEnv *env, struct thread_rec *t, struct hits *h);
/* filters_hits_free: drops counted for captures the link refused, references released. */
void ext_captures_release(JNIEnv *env, struct hits *h);
/* Appends a JdwpdConditionError hit before the request's own if its condition failed at this match
 * and counted as true (BF_STOP_ON_ERROR); forgets the failure either way. */
void ext_report_failure(struct filter *f, bool matched, struct ev_ctx *c, struct hits *h);
/* Appends a JdwpdDisabled hit if the filter disabled itself and has not said so yet. */
void ext_report_disabled(struct filter *f, struct hits *h);

/* EXT_STATS: ext_ext_stats (LINK_HANDLERS_EXT, link_protocol.h). */
LINK_HANDLERS_EXT(BUF_DECLARE_FILLS, BUF_DECLARE_REPLIES)

#endif
