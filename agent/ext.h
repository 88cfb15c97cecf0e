/* jdwpd's extension in the agent: condition programs run in the event callback, budgets per
 * request (docs/extensions.md, protocol/agent_code.py).  Conditions on the event path work on
 * memory made when the request was set: no allocation, no lock of their own (the agent lock, which
 * matching already holds, guards every counter).  Captures are read after the lock is let go, into
 * the thread's own buffer; their request is reference-counted meanwhile. */
#ifndef JDWPD_EXT_H
#define JDWPD_EXT_H

#include "agent.h"
#include "live.h"

/* A condition program, verified when the request is set. */
typedef struct ext_prog {
    uint8_t result_tag;      /* stack type of the result: 'I' for a condition */
    jmethodID method;        /* NULL: reads no local and no `this` */
    uint16_t nclasses;
    jclass *classes;         /* global refs */
    uint16_t nstrings;
    uint16_t *string_len;
    const jchar **strings;   /* into `pool` */
    jchar *pool;
    uint32_t code_len;
    uint8_t *code;
} ext_prog;

/* What a capture reads at a hit (protocol/agent_code.py).  Shared by the modifier that named it
 * and the request bound to it (refs, changed under the agent lock): a capture read outside the
 * lock keeps it alive through its request's reference. */
typedef struct ext_capture {
    int32_t refs;
    uint16_t frames, locals_frames, depth, max_string, max_items;
    uint32_t max_bytes, max_micros;
    bool this_object;        /* CW_THIS: `this` of every frame whose locals are read */
    bool object_ids;         /* CW_IDS: objects and arrays carry their ids */
    uint16_t nwatches;
    ext_prog **watches;
} ext_capture;

/* One object named by a Conditional modifier. */
typedef struct ext_obj {
    uint8_t kind;            /* XO_CONDITION / XO_CAPTURE / XO_BUDGET */
    ext_prog *prog;
    ext_capture *capture;
    uint32_t hit_cap, rate, cpu_ppm;
    int64_t expires_ms;
    bool counted_reader;     /* a condition reading locals: in ext_local_readers while it lives */
} ext_obj;

/* A stack cell: its type (I J F D L K) and value; K is a string constant (index in v.i). */
typedef struct ext_cell {
    jvalue v;
    char t;
} ext_cell;

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
    bool disabled_reported;
    bool budgeted;              /* a condition or a capture: the quota applies */
    ext_capture *capture;       /* a reference of its own */
    int64_t dropped;            /* captures dropped: the link's queue was full */
    int64_t locals_walked, locals_by_jvmti;  /* RequestStats: how locals were read (live.h) */
    /* Lifetime (agent lock): the filter, the grave and every capture in flight hold a reference.
     * A capture read outside the lock finds here, when it is queued, whether the request is still
     * there (gone: its filter was freed; cleared: by the daemon, not by its own budget or count). */
    int32_t refs;
    bool gone, cleared;
    struct filter *filter;      /* while !gone */
} ext_req;

/* Parse the program bytes of a Conditional modifier (executor thread).  0 or a status. */
int ext_obj_parse(JNIEnv *env, const uint8_t *data, uint32_t len, ext_obj **out);
void ext_obj_free(JNIEnv *env, ext_obj *o);

/* cond_parse.c: operand bytes of an opcode (-1: unknown); the array class of a component tag. */
int ext_operand_size(uint8_t op);
jclass ext_array_class(uint8_t tag);
bool ext_object_tag(uint8_t t);  /* a JDWP tag of an object (L [ s t g l c) */

/* How the locals and `this` a program or capture read were read: by a walk, or through JVMTI. */
typedef struct ext_local_reads {
    uint32_t walked, by_jvmti;
} ext_local_reads;

/* Where a program runs: the event thread's top frame, and its locals if a walk read them. */
typedef struct ext_frame {
    jthread thread;
    jmethodID method;
    jlocation loc;
    live_view *live;  /* NULL or empty: locals through JVMTI */
    ext_local_reads reads;
} ext_frame;

/* Evaluate a program on the current thread's top frame; 0 with *out set, or an XR_* reason. */
int ext_eval(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out);

/* The same inside the caller's JNI local frame: an object result stays valid in it (captures). */
int ext_run(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out);

/* Programs set that read locals or `this` (a hint, read without the lock: walk before matching). */
extern volatile int ext_local_readers;

int64_t ext_now_ns(void);

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
 * splices the blobs into h's body.  Idempotent; hits_send_raw calls it. */
struct thread_rec;
void ext_captures_run(JNIEnv *env, struct thread_rec *t, struct hits *h);
/* hits_free: drops counted for captures the link refused, references released. */
void ext_captures_release(JNIEnv *env, struct hits *h);
void ext_capture_release(JNIEnv *env, ext_capture *c);  /* cond_parse.c; lock taken inside */
/* capture.c: the blob of one capture at the current thread's hit. */
void capture_write(JNIEnv *env, const ext_capture *cap, jthread thread, jmethodID method, jlocation loc,
                   bool walk, ext_local_reads *reads, outbuf *out);  /* walk: not under the agent lock (live.h) */  /* walk: not under the agent lock (live.h) */
/* cond_parse.c */
void ext_prog_free(JNIEnv *env, ext_prog *p);
int ext_prog_parse(JNIEnv *env, inbuf *in, ext_prog **out);

/* Appends a JdwpdDisabled hit if the filter disabled itself and has not said so yet. */
void ext_report_disabled(struct filter *f, struct hits *h);

executor_fn exec_ext_lookup(uint16_t kind);

#endif
