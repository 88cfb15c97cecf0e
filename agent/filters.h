/* Compiled event requests (filters) and the event context they are matched against. */
#ifndef JDWPD_FILTERS_H
#define JDWPD_FILTERS_H

#include "base.h"
#include "buf.h"
#include "threads.h"

typedef struct modifier {
    uint8_t kind;
    int32_t count;        /* MK_COUNT: occurrences left */
    jobject ref;          /* global ref: thread, class, exception class, field class, instance */
    char *pattern;        /* class match/exclude, source name */
    jmethodID method;     /* location only */
    jlocation loc;
    bool caught, uncaught;
    jfieldID field;
    int size, depth;      /* step */
    struct ext_obj *ext;  /* Conditional: the extension's condition, capture or budget (ext.h) */
} modifier;

typedef struct filter {
    struct filter *next;
    int32_t request_id;
    uint8_t event_kind;
    uint8_t suspend_policy;
    bool expired;         /* a Count reached zero: the request matches nothing more */
    uint64_t seq;         /* installation order: newest first where kinds share one JVMTI event */
    int nmods;
    modifier *mods;
    thread_rec *step_thread;
    struct ext_req *ext;  /* conditions and budgets of jdwpd's extension (ext.c), else NULL */
} filter;

/* What one JVMTI callback knows; lazily filled parts are computed on first use. */
typedef struct ev_ctx {
    JNIEnv *env;
    jthread thread;
    jclass cls;           /* class of the location, or the prepared class */
    jmethodID method;
    jlocation loc;
    jobject exception;
    bool caught;
    jfieldID field;
    jclass field_class;
    jobject object;       /* field events: the object; monitor events: the monitor */
    bool object_known;
    jobject self;         /* the event frame's `this` (lazy; InstanceOnly) */
    bool self_known;
    char *class_name;     /* dotted, lazy */
    char *source_name;    /* lazy */
    bool source_known;
    struct live_view *live;  /* the thread's top frame walked before matching (live.h), or NULL */
} ev_ctx;

/* A capture hit whose blob is still to be read (ext.c): matched under the lock, read outside it. */
typedef struct cap_pending {
    size_t hit_at;        /* where its hit starts in the body (to take it out) */
    size_t at;            /* where its length and blob go */
    struct ext_req *r;    /* a reference held */
    uint64_t generation;  /* the link's when it matched */
    size_t blob_at, blob_len;
    uint8_t state;        /* CP_* */
} cap_pending;
enum { CP_PENDING, CP_WRITTEN, CP_DROPPED, CP_GONE };
#define HITS_MAX_CAPTURES 4  /* more on one event are read under the lock, as before */

/* Hits collected for one EVENT frame. */
typedef struct hits {
    outbuf body;          /* encoded hits */
    int count;
    uint8_t policy;
    /* captures of this event (ext.c); their thread and place are the event's */
    int ncaps;
    bool caps_run;        /* ext_captures_run done */
    bool caps_refused;    /* the link's queue was full: the frame (captures only) was dropped */
    jthread cap_thread;
    jmethodID cap_method;
    jlocation cap_loc;
    cap_pending caps[HITS_MAX_CAPTURES];
} hits;

typedef void (*hit_writer)(outbuf *b, ev_ctx *c, void *arg);

void hits_init(hits *h);
void hits_free(hits *h);
/* Matches every live filter of kind against c (lock held); each match appends a hit with writer's data. */
void match_kind(uint8_t kind, ev_ctx *c, hits *h, hit_writer w, void *arg);
/* Two kinds raised by one JVMTI event (METHOD_EXIT and ..._WITH_RETURN_VALUE), hits newest request first
 * across both, as the reference's single handler chain orders them. */
void match_two_kinds(uint8_t k1, hit_writer w1, uint8_t k2, hit_writer w2, ev_ctx *c, hits *h, void *arg);
bool filter_matches(filter *f, ev_ctx *c);
filter *filters_of(uint8_t kind);
void filter_expire_pending(JNIEnv *env);  /* remove expired filters (lock held) */
void ctx_free(ev_ctx *c);
/* Sends one EVENT frame: suspend policy applied first (lock taken inside); hits_send (callback.h)
 * reports pending class unloads first. */
void hits_send_raw(JNIEnv *env, thread_rec *t, uint64_t thread_id, hits *h);
void hit_begin(hits *h, int32_t request_id, uint8_t kind, uint8_t policy);
/* Encoded hits put before h's own (co-located events deferred to this one). */
void hits_prepend(hits *h, const uint8_t *data, size_t len);

/* OnLoad: the step machine (step.c) starts and stops with its STEP request.  Handed over at load,
 * so that the filters need not know the machine, which matches its own filter against them. */
void filters_init(int (*step_start)(JNIEnv *env, filter *f, jthread thread, int size, int depth),
                  void (*step_stop)(JNIEnv *env, filter *f));

/* The executor's side: SET_REQUEST, CLEAR_REQUEST, CLEAR_ALL_REQUESTS (breakpoints, watches and
 * steps installed and removed with their requests). */
int filters_set(JNIEnv *env, inbuf *in);
void filters_clear(JNIEnv *env, int32_t request_id);
void filters_clear_all(JNIEnv *env);
int filters_count(void);

#endif
