/* The hits one callback collects for its EVENT frame, and the captures among them still to be read. */
#ifndef JDWPD_HITS_H
#define JDWPD_HITS_H

#include "base.h"
#include "buf.h"
#include "filter_list.h"

/* A capture hit whose blob is still to be read (ext.c): matched under the lock, read outside it. */
typedef struct cap_pending {
    size_t hit_at;        /* where its hit starts in the body (to take it out) */
    size_t at;            /* where its length and blob go */
    struct ext_req *r;    /* a reference held */
    uint64_t generation;  /* the link's when it matched */
    size_t blob_at, blob_len;
    uint8_t state;        /* CP_* */
    bool after_failure;   /* a JdwpdConditionError hit just before it (from hit_at) goes with it */
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
    bool at_breakpoint;   /* a Breakpoint callback's: its frame may be read in place (slots.h) */
    jthread stop_thread;  /* the event's thread and place, for the reads at a stop (stop_reads.c) */
    jmethodID stop_method;
    jlocation stop_loc;
    int nfailures;        /* JdwpdConditionError hits: they go (or are dropped) with their captures */
    size_t failure_at;    /* where the last one starts in the body, */
    int32_t failure_request; /* for this request (0: none pending) */
    cap_pending caps[HITS_MAX_CAPTURES];
} hits;

typedef void (*hit_writer)(outbuf *b, ev_ctx *c, void *arg);

void hits_init(hits *h);
void hits_begin(hits *h, int32_t request_id, uint8_t kind, uint8_t policy);
/* Encoded hits put before h's own (co-located events deferred to this one). */
void hits_prepend(hits *h, const uint8_t *data, size_t len);

#endif
