/* Shared state and helpers of the jdwpd JVMTI agent.  See docs/link.md. */
#ifndef JDWPD_AGENT_H
#define JDWPD_AGENT_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link_protocol.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

typedef struct agent_options {
    char *link;        /* "unix:/path" or "127.0.0.1:PORT" */
    char *secretfile;
    char *profile;     /* full | nothrow | inspect */
    bool suspend;
    long timeout_ms;   /* 0: wait forever for a daemon when suspend=y */
    char *log;
    char *onthrow;     /* onthrow=: the exception class's signature ("Ljava/lang/Foo;"), or NULL */
    bool onuncaught;   /* onuncaught=y */
    bool optional;     /* optional=y: a VM whose agent cannot start (options, secret) runs without it */
} agent_options;

typedef struct agent_globals {
    JavaVM *jvm;
    jvmtiEnv *jvmti;
    agent_options opts;
    uint8_t secret[LINK_SECRET_SIZE];
    jvmtiCapabilities caps;  /* what we hold */
    uint64_t caps_mask;      /* the same as CapBit bits */
    int32_t hello_flags;
    volatile bool vm_started;
    volatile bool vm_dead;
    volatile bool dormant;  /* onthrow=/onuncaught=: no link, no threads until the exception */
    /* Cached classes for object kinds; global refs made at VMInit. */
    jclass cls_string, cls_thread, cls_thread_group, cls_class_loader, cls_class;
    jclass cls_module, cls_throwable;  /* type checks before JVMTI/JNI take an object as one */
    jrawMonitorID lock;  /* threads, filters, breakpoints, parking: the one big agent lock */
} agent_globals;

extern agent_globals G;

/* log.c-ish helpers in agent.c */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Big lock helpers (raw monitor; re-entrant). */
void lock_enter(void);
void lock_exit(void);
jvmtiError lock_wait(jlong ms);  /* JVMTI_ERROR_INTERRUPT: the thread was interrupted */
void lock_notify_all(void);

/* onthrow=/onuncaught= (wake.c): the Exception callback of a dormant agent. */
void wake_on_exception(JNIEnv *env, jthread thread, jmethodID method, jlocation loc, jobject exception,
                       jmethodID catch_method, jlocation catch_loc);

/* JNI env of the current (attached) thread, or NULL. */
JNIEnv *agent_env(void);

/* ---- outbound/inbound buffers (buf.c) -------------------------------------- */
typedef struct outbuf {
    uint8_t *data;
    size_t len, cap;
    bool oom;
} outbuf;

void ob_init(outbuf *b, size_t reserve);
void ob_free(outbuf *b);
void ob_bytes(outbuf *b, const void *p, size_t n);
void ob_u8(outbuf *b, uint8_t v);
void ob_u16(outbuf *b, uint16_t v);
void ob_u32(outbuf *b, uint32_t v);
void ob_u64(outbuf *b, uint64_t v);
void ob_str(outbuf *b, const char *s);  /* NULL writes "" */
void ob_blob(outbuf *b, const void *p, uint32_t n);
void ob_put_u32_at(outbuf *b, size_t pos, uint32_t v);
/* A frame: reserve the header, fill the body, then finish with the header. */
void ob_frame_begin(outbuf *b);
void ob_frame_end(outbuf *b, uint32_t id, uint16_t kind, uint16_t status);

typedef struct inbuf {
    const uint8_t *data;
    size_t len, pos;
    bool bad;  /* sticky: a read past the end or a malformed field */
} inbuf;

uint8_t ib_u8(inbuf *b);
uint16_t ib_u16(inbuf *b);
uint32_t ib_u32(inbuf *b);
uint64_t ib_u64(inbuf *b);
int32_t ib_i32(inbuf *b);
/* Returns a malloc'd NUL-terminated copy (caller frees) or NULL with b->bad set. */
char *ib_str(inbuf *b);
/* Points into the buffer; length in *n. */
const uint8_t *ib_blob(inbuf *b, uint32_t *n);
bool ib_done(inbuf *b);  /* consumed exactly, nothing bad */

uint32_t be32(const uint8_t *p);
uint16_t be16(const uint8_t *p);
uint64_t be64(const uint8_t *p);

/* ---- sha256.c ----------------------------------------------------------------- */
void hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *msg, size_t msglen, uint8_t out[32]);
bool ct_equal(const uint8_t *a, const uint8_t *b, size_t n);

/* ---- link.c ----------------------------------------------------------------- */
int link_start(JNIEnv *env);            /* start the agent threads */
void link_finish_handshake(jlong timeout_ms);  /* at VM death: a handshake under way ends first */
void link_vm_death(JNIEnv *env);        /* flush, shut the socket, quiesce our threads */
bool link_connected(void);              /* authenticated daemon present */
bool link_wait_connected(jlong timeout_ms);  /* 0: forever; false on timeout or VM death */
/* Queue a whole frame (takes ownership of b->data). Events may block while the queue is full. */
void link_send(outbuf *b, bool is_event);
/* An event that must never wait: queued, or dropped (false) while the queue is over its limit. */
bool link_send_nowait(outbuf *b);
bool link_queue_full(void);  /* the queue is over its limit (the daemon reads too slowly) */
void link_send_notice(int what, const char *detail);
bool is_agent_thread(JNIEnv *env, jthread thread);
uint64_t link_generation(void);  /* changes on every connect */

/* ---- objects.c ------------------------------------------------------------------ */
void objects_init(void);
/* ID of an object (0 for NULL); creates an entry. Never fails except OOM (returns 0). */
uint64_t obj_id(JNIEnv *env, jobject obj);
/* Local ref for an id, or NULL with *status set (LS_INVALID_ID / LS_COLLECTED). id 0 -> NULL, status 0. */
jobject obj_ref(JNIEnv *env, uint64_t id, int *status);
uint8_t obj_kind(JNIEnv *env, jobject obj);  /* ObjectKind tag */
int obj_pin(JNIEnv *env, uint64_t id);
int obj_unpin(JNIEnv *env, uint64_t id);
void obj_release(JNIEnv *env, uint64_t id);
void obj_unpin_all(JNIEnv *env);
void obj_pin_all(JNIEnv *env);              /* a suspend-all began: every id strong */
void obj_unpin_all_suspended(JNIEnv *env);  /* the matching resume-all */
void obj_stats(uint64_t *live, uint64_t *pins);
/* Handed-out method and field ids. */
void method_remember(JNIEnv *env, jmethodID m, jclass declaring);
int method_check(uint64_t id, jmethodID *out);  /* 0 or LS_INVALID_METHOD (unknown, or its class unloaded) */
int method_check_unloaded(uint64_t id, jmethodID *out, bool *unloaded);  /* also says which */
void field_remember(JNIEnv *env, jfieldID f, jclass declaring, bool is_static, uint8_t tag);
/* A field id valid for target (an object's class or the class of a static; NULL: any), with its tag;
 * *declaring (if asked) is a local reference to its class, the caller's to delete. */
int field_check(JNIEnv *env, uint64_t id, jclass target, bool want_static, jfieldID *out, uint8_t *tag,
                jclass *declaring);
uint64_t fields_count(void);
uint64_t methods_count(void);

/* ---- classes helpers (exec_classes.c) --------------------------------------------- */
uint8_t ref_kind_of(jclass cls);
/* Write a location: ref kind, class id, method id, index.  Remembers the method. */
void ob_location(outbuf *b, JNIEnv *env, jmethodID method, jlocation index);
void ob_null_location(outbuf *b);
uint64_t method_wire_id(jmethodID method);  /* 0 for an obsolete method */
/* A value on the link; tag is the JDWP tag (for objects any object tag: the kind is recomputed). */
void ob_tagged(outbuf *b, JNIEnv *env, jobject obj);
void ob_object_value(outbuf *b, JNIEnv *env, jobject obj, uint8_t null_tag);
/* Value from jvalue by signature tag. */
void ob_jvalue(outbuf *b, JNIEnv *env, uint8_t tag, jvalue v);
/* Read a VALUE into a jvalue; objects resolved to local refs. Returns 0 or a status. */
int ib_value(inbuf *in, JNIEnv *env, uint8_t *tag, jvalue *v);
uint8_t tag_of_signature(const char *sig);
bool tag_is_object(uint8_t tag);

/* ---- threads.c ------------------------------------------------------------------ */
typedef struct step_state step_state;
typedef struct thread_rec {
    struct thread_rec *next;
    jweak ref;            /* weak: an ended thread goes with its last reference, as with the
                           * reference; use thread_ref() (NULL once collected) */
    uint64_t id;
    int suspend_count;    /* the agent's count */
    bool jvmti_suspended; /* we called SuspendThread */
    int in_agent;         /* inside one of our callbacks: never SuspendThread'ed, parks on the way out */
    bool parked;          /* waiting in thread_park */
    bool at_event;        /* parked because of an event */
    bool is_agent;
    bool dead;
    bool no_tls;          /* JVMTI refused it thread-local storage: found by search */
    /* Frame ids name (generation, depth); the reference moves a thread's generation on at each real
     * resume by a debugger, and starts it at 0 again for an ended thread a debugger suspends (its count
     * there is bookkeeping only: ended_count). */
    uint32_t frame_generation;
    bool ended_count;
    /* PopFrames: the parked thread leaves its callback once so the pop takes effect, and parks again at
     * the single step that follows (the caller's invoke instruction). */
    bool pop_release;
    bool pop_pending;
    /* Co-located events: a breakpoint right where this thread last reported a step or method entry
     * is not reported again (the debugger has seen the thread there), as the reference does. */
    jmethodID cle_method;
    jlocation cle_loc;
    bool cle_valid;  /* set by that report */
    bool cle_seen;   /* cle_valid as the current callback found it */
    /* invoke slot (invoke.c) */
    struct invoke_req *invoke;
    /* step (step.c) */
    step_state *step;
    /* co-located events deferred to the breakpoint at the same place */
    outbuf deferred;      /* hits, already encoded */
    int deferred_count;
    uint8_t deferred_policy;
    jmethodID deferred_method;
    jlocation deferred_loc;
    outbuf capture;       /* the blobs of this thread's captures, read outside the lock (ext.c); kept */
} thread_rec;

void threads_init(void);
/* The record of a thread (creating it); lock held by the caller. */
thread_rec *thread_rec_of(JNIEnv *env, jthread thread);
/* The record of a thread if it has one; lock held by the caller. */
thread_rec *thread_rec_find(JNIEnv *env, jthread thread);
/* A local ref to the record's thread, NULL once the (ended) thread was collected; caller deletes it. */
jthread thread_ref(JNIEnv *env, thread_rec *t);
/* Current thread's record, or NULL if it is an agent thread; callbacks call it first. */
thread_rec *callback_enter(JNIEnv *env, jthread thread);
void callback_exit(JNIEnv *env, thread_rec *t);  /* parks if the count is > 0 */
int thread_suspend(JNIEnv *env, thread_rec *t);
int thread_resume(JNIEnv *env, thread_rec *t);
/* Lock held: the debugger's suspension of the thread ended (its frame ids with it). */
void thread_ran(thread_rec *t);
int threads_suspend_all(JNIEnv *env, thread_rec *except);
int threads_resume_all(JNIEnv *env);
void threads_reset(JNIEnv *env);  /* link loss: counts 0, all resumed */
void threads_drop_dead(JNIEnv *env);  /* executor only, lock held: forget ended threads */
void thread_forget(JNIEnv *env, thread_rec *t);  /* thread ended */
/* Apply a suspend policy for an event on thread t (lock held). */
void apply_suspend_policy(JNIEnv *env, thread_rec *t, uint8_t policy);
/* Executor side: a live application thread from an id, or a status. */
int thread_from_id(JNIEnv *env, uint64_t id, jthread *out, thread_rec **rec);
extern int suspend_all_depth;

/* ---- events.c / filters.c ----------------------------------------------------------- */
void events_init(jvmtiEventCallbacks *cb);
int filters_set(JNIEnv *env, inbuf *in);
void filters_clear(JNIEnv *env, int32_t request_id);
void filters_clear_all(JNIEnv *env);
int filters_count(void);
int events_enabled_count(void);  /* JVMTI event kinds enabled globally by filters/suspend-all */
void events_vm_death(JNIEnv *env);
void events_vm_start(JNIEnv *env, jthread thread);
void event_enable(jvmtiEvent ev, jthread thread, bool on);

/* ---- unload.c ----------------------------------------------------------------------------- */
void unload_init(void);  /* OnLoad/OnAttach: the environment that watches the classes whose ids were sent */
void unload_watch_class(jclass cls, uint64_t id);  /* obj_id: a class object's id was handed out */
int unload_tracking_start(JNIEnv *env);
bool unload_tracking_active(void);
void unload_report_pending(JNIEnv *env);  /* writer thread */

/* ---- breakpoints.c ------------------------------------------------------------------ */
int bp_add(jmethodID m, jlocation loc);
void bp_remove(jmethodID m, jlocation loc);
bool bp_present(jmethodID m, jlocation loc);
void bp_clear_all(void);
int bp_count(void);
/* The agent's own breakpoint: its Breakpoint events stay on, outside event_enable's count. */
int bp_add_internal(jmethodID m, jlocation loc);
bool bp_internal_armed(void);

/* ---- app_resume.c --------------------------------------------------------------- */
/* After link_start: hold an application's Thread.resume() of a thread a debugger holds (JDK < 20). */
void app_resume_arm(JNIEnv *env);
/* From the Breakpoint callback, first: waits there if this is Thread.resume on such a thread. */
void app_resume_hold(JNIEnv *env, jthread resumer, jmethodID method, jlocation loc);

/* ---- step.c -------------------------------------------------------------------------- */
struct filter;
int step_start(JNIEnv *env, struct filter *f, jthread thread, int size, int depth);
void step_stop(JNIEnv *env, struct filter *f);
void step_single_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m, jlocation loc);
void step_frame_pop(JNIEnv *env, thread_rec *t, jthread thread, bool by_exception);
void step_exception_catch(JNIEnv *env, thread_rec *t, jthread thread);  /* an exception caught in the top frame */
bool step_single_stepping(thread_rec *t);  /* single-step events on for this thread now */
void step_method_entry(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m);

/* ---- invoke.c ------------------------------------------------------------------------- */
int invoke_submit(JNIEnv *env, uint32_t req_id, inbuf *in);
void invoke_run_pending(JNIEnv *env, thread_rec *t);  /* in the parked thread, lock held */
bool invoke_is_runnable(thread_rec *t);  /* handed over and not started */
void invoke_drop_pending(JNIEnv *env, thread_rec *t);  /* lock held */
int invoke_detach(JNIEnv *env, inbuf *in, outbuf *out);  /* executor of INVOKE_DETACH */

/* ---- dispatch.c ------------------------------------------------------------------------- */
/* Execute one request; writes the reply frame (or takes over the reply, for INVOKE). */
void dispatch_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len);
void agent_reset_after_link_loss(JNIEnv *env);

/* One executor: reads the request from in, writes reply body fields to out; returns a status. */
typedef int (*executor_fn)(JNIEnv *env, inbuf *in, outbuf *out);
executor_fn exec_lookup(uint16_t kind);

/* JVMTI deallocate helper */
void jvmti_free(void *p);

#endif

/* ---- executor helpers (values.c) ------------------------------------------------------ */
#define PARSED(in) do { if (!ib_done(in)) return LS_BAD_MESSAGE; } while (0)
#define CHECK(call) do { jvmtiError err_ = (call); if (err_ != JVMTI_ERROR_NONE) return (int)err_; } while (0)
int object_from_id(JNIEnv *env, uint64_t id, jobject *out);  /* id 0 -> LS_INVALID_ID */
int class_from_id(JNIEnv *env, uint64_t id, jclass *out);    /* JVMTI_ERROR_INVALID_CLASS if not a class */
/* The object of an id, or the status `wrong` if it is no instance of `want`. */
int object_of_class(JNIEnv *env, uint64_t id, jclass want, int wrong, jobject *out);
jvalue get_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag);  /* obj NULL: static */
void set_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag, jvalue v);
/* Values match a declared tag: primitives exactly, objects by assignability to the declared type. */
bool value_fits(uint8_t declared, uint8_t given);
/* JNI stores objects unchecked: an object must be an instance of the declared type (sig, resolved
 * like the holder class would) before it is written anywhere.  0 or JVMTI TYPE_MISMATCH. */
int object_fits(JNIEnv *env, jobject obj, const char *sig, jclass holder);
int field_value_fits(JNIEnv *env, jclass decl, jfieldID f, uint8_t tag, jvalue v);
/* Sets the fields of n (field id, value) pairs read from in: of obj, or statics of cls when obj is NULL.
 * Every pair is checked before the first write: a request applies completely or not at all. */
int set_fields_checked(JNIEnv *env, inbuf *in, uint32_t n, jclass cls, jobject obj);
/* Writes the values of n (field id, tag asked) pairs read from in: of obj (its statics too, as JDWP
 * allows), or statics of cls when obj is NULL. */
int get_fields_checked(JNIEnv *env, inbuf *in, outbuf *out, uint32_t n, jclass cls, jobject obj);
/* Writes a count, then the ids of n objects (local refs left to the caller). */
void ob_ids(outbuf *out, JNIEnv *env, jint n, const jobject *objs);
void link_flush(jlong timeout_ms);
void link_shutdown(void);
