/* JVMTI event callbacks: filter in the agent, report one EVENT per callback, apply the suspend
 * policy, park.  A callback that matches nothing sends nothing. */
#include <stdlib.h>
#include <string.h>

#include "app_resume.h"
#include "base.h"
#include "breakpoints.h"
#include "buf.h"
#include "callback.h"
#include "colocate.h"
#include "cond_parse.h"
#include "events.h"
#include "evmode.h"
#include "filter_list.h"
#include "filters.h"
#include "hits.h"
#include "link.h"
#include "live.h"
#include "objects.h"
#include "slots.h"
#include "step.h"
#include "threads.h"
#include "values.h"
#include "wake.h"

static void write_location(outbuf *b, ev_ctx *c, void *arg) {
    (void)arg;
    values_out_location(b, c->env, c->method, c->loc);
}

static void write_nothing(outbuf *b, ev_ctx *c, void *arg) {
    (void)b; (void)c; (void)arg;
}

static void JNICALL cb_breakpoint(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation loc) {
    (void)jvmti;
    ev_call e;
    if (!ev_enter(&e, env, thread, method, loc)) return;
    thread_rec *t = e.t;
    e.h.at_breakpoint = true;
    app_resume_hold(env, thread, method, loc);
    /* A condition that reads locals finds them in place (slots.h) or walked, before the lock
     * (live.h): a walk runs Java.  The first hit at a location walks too, to learn its slots. */
    live_view live;
    slots_view slots;
    if (cond_parse_reads_locals_at(method)) {
        bool in_place = slots_open(env, method, loc, &slots);
        if (!in_place || slots.kinds == NULL) {
            live_load(env, &live, 1);
            e.c.live = &live;
            if (in_place) slots_learn(env, &slots, &live, loc);
        }
        if (slots.locals != NULL) e.c.slots = &slots;
    }
    base_lock_enter();
    if (t->deferred_count && (t->deferred_method != method || t->deferred_loc != loc)) {
        base_lock_exit();
        colocate_flush_deferred(env, t, NULL);
        base_lock_enter();
    }
    bool co_located = t->cle_seen && t->cle_method == method && t->cle_loc == loc;
    if (!co_located) filters_match_kind(EK_BREAKPOINT, &e.c, &e.h, write_location, NULL);
    colocate_flush_deferred(env, t, &e.h);
    base_lock_exit();
    if (e.c.live) live_release(env, e.c.live);
    ev_exit(&e);
}

static void JNICALL cb_single_step(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation loc) {
    (void)jvmti;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    colocate_flush_stale_deferred(env, t, method, loc);
    base_lock_enter();
    bool popped = t->pop_pending;
    if (popped) {
        t->pop_pending = false;
        if (t->step == NULL) evmode_enable(JVMTI_EVENT_SINGLE_STEP, thread, false);
        base_lock_notify_all();
    }
    base_lock_exit();
    if (!popped) step_single_step(env, t, thread, method, loc);
    /* Hits deferred to this step that no step report or breakpoint took go out now, from here. */
    base_lock_enter();
    bool leftover = t->deferred_count && t->deferred_method == method && t->deferred_loc == loc &&
                    !breakpoints_present(method, loc);
    base_lock_exit();
    if (leftover) colocate_flush_deferred(env, t, NULL);
    callback_exit(env, t);
}

static void JNICALL cb_frame_pop(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jboolean by_exc) {
    (void)jvmti; (void)method;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    step_frame_pop(env, t, thread, by_exc);
    callback_exit(env, t);
}

/* Enabled only for a stepping thread (JDWP's EXCEPTION_CATCH kind is not supported): the step machine's. */
static void JNICALL cb_exception_catch(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                       jlocation loc, jobject exception) {
    (void)jvmti; (void)method; (void)loc; (void)exception;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    step_exception_catch(env, t, thread);
    callback_exit(env, t);
}

typedef struct exc_arg {
    jobject exception;
    jmethodID catch_method;
    jlocation catch_loc;
} exc_arg;

static void write_exception(outbuf *b, ev_ctx *c, void *arg) {
    exc_arg *e = arg;
    values_out_location(b, c->env, c->method, c->loc);
    values_out_tagged(b, c->env, e->exception);
    if (e->catch_method) values_out_location(b, c->env, e->catch_method, e->catch_loc);
    else values_out_null_location(b);
}

static void JNICALL cb_exception(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation loc,
                                 jobject exception, jmethodID catch_method, jlocation catch_loc) {
    (void)jvmti;
    if (base_g.dormant) {
        wake_on_exception(env, thread, method, loc, exception, catch_method, catch_loc);  /* wake.c */
        return;
    }
    ev_call e;
    if (!ev_enter(&e, env, thread, method, loc)) return;
    e.c.exception = exception;
    e.c.caught = catch_method != NULL;
    e.c.catch_method = catch_method;
    exc_arg x = {exception, catch_method, catch_loc};
    ev_match(&e, EK_EXCEPTION, write_exception, &x);
    ev_exit(&e);
}

static void JNICALL cb_thread_start(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    ev_call e;
    if (!ev_enter(&e, env, thread, NULL, 0)) return;
    base_lock_enter();
    /* A thread born during a suspend-all starts suspended, as every other thread is. */
    if (threads_suspend_all_depth > 0 && e.t->suspend_count < threads_suspend_all_depth) e.t->suspend_count = threads_suspend_all_depth;
    ev_match(&e, EK_THREAD_START, write_nothing, NULL);
    base_lock_exit();
    ev_exit(&e);
}

static void JNICALL cb_thread_end(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    ev_call e;
    if (!ev_enter(&e, env, thread, NULL, 0)) return;
    ev_match(&e, EK_THREAD_DEATH, write_nothing, NULL);
    ev_exit(&e);
    base_lock_enter();
    threads_forget(env, e.t);
    base_lock_exit();
}

static void write_class_prepare(outbuf *b, ev_ctx *c, void *arg) {
    (void)arg;
    char *sig = NULL;
    jint status = 0;
    (*base_g.jvmti)->GetClassSignature(base_g.jvmti, c->cls, &sig, NULL);
    (*base_g.jvmti)->GetClassStatus(base_g.jvmti, c->cls, &status);
    buf_out_u8(b, values_ref_kind_of(c->cls));
    buf_out_u64(b, objects_id(c->env, c->cls));
    buf_out_str(b, sig);
    buf_out_u32(b, (uint32_t)status);
    base_jvmti_free(sig);
}

static void JNICALL cb_class_prepare(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jclass klass) {
    (void)jvmti;
    thread_rec *t = callback_enter(env, thread);
    /* Classes our own threads prepare are still reported, with no thread and no suspension. */
    ev_call e;
    ev_begin(&e, t, env, t ? thread : NULL, NULL, 0);
    e.c.cls = klass;
    ev_match(&e, EK_CLASS_PREPARE, write_class_prepare, NULL);
    ev_exit(&e);
}

static void JNICALL cb_method_entry(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method) {
    (void)jvmti;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    base_lock_enter();
    bool requested = filter_list_of(EK_METHOD_ENTRY) != NULL;
    base_lock_exit();
    if (!requested) {  /* on for a waiting INTO step only (step.c): every entry of the skipped code */
        step_method_entry(env, t, thread, method);
        callback_exit(env, t);
        return;
    }
    jlocation start = -1, end;
    jint mods = 0;
    (*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, method, &mods);
    if (!(mods & 0x0100)) (*base_g.jvmti)->GetMethodLocation(base_g.jvmti, method, &start, &end);
    ev_call e;
    ev_begin(&e, t, env, thread, method, start);
    ev_match(&e, EK_METHOD_ENTRY, write_location, NULL);
    /* Not ev_exit: the hits may wait for a breakpoint or step at the same place. */
    colocate_send_or_defer(env, t, &e.h, method, start, start >= 0 && step_single_stepping(t));
    filters_hits_free(&e.h);
    filters_ctx_free(&e.c);
    step_method_entry(env, t, thread, method);
    callback_exit(env, t);
}

typedef struct exit_arg {
    uint8_t tag;
    jvalue value;
} exit_arg;

static void write_exit_location(outbuf *b, ev_ctx *c, void *arg) {
    (void)arg;
    values_out_location(b, c->env, c->method, c->loc);
}

static void write_exit_value(outbuf *b, ev_ctx *c, void *arg) {
    exit_arg *e = arg;
    values_out_location(b, c->env, c->method, c->loc);
    values_out_jvalue(b, c->env, e->tag, e->value);
}

static void JNICALL cb_method_exit(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                   jboolean by_exception, jvalue value) {
    (void)jvmti;
    if (by_exception) return;  /* JDWP reports no method exit for a method ended by a throw */
    ev_call ev;
    if (!ev_enter(&ev, env, thread, method, -1)) return;
    jmethodID fm;
    jlocation loc = -1;
    if ((*base_g.jvmti)->GetFrameLocation(base_g.jvmti, thread, 0, &fm, &loc) != JVMTI_ERROR_NONE || fm != method) loc = -1;
    ev.c.loc = loc;
    exit_arg e = {TAG_VOID, value};
    char *name = NULL, *sig = NULL;
    if ((*base_g.jvmti)->GetMethodName(base_g.jvmti, method, &name, &sig, NULL) == JVMTI_ERROR_NONE) {
        const char *ret = strchr(sig, ')');
        e.tag = values_tag_of_signature(ret ? ret + 1 : "V");
    }
    base_jvmti_free(name);
    base_jvmti_free(sig);
    base_lock_enter();
    filters_match_two_kinds(EK_METHOD_EXIT, write_exit_location, EK_METHOD_EXIT_WITH_RETURN_VALUE, write_exit_value, &ev.c,
                    &ev.h, &e);
    base_lock_exit();
    ev_exit(&ev);
}

typedef struct field_arg {
    bool modification;
    uint8_t tag;
    jvalue value;
} field_arg;

static void write_field(outbuf *b, ev_ctx *c, void *arg) {
    field_arg *fa = arg;
    values_out_location(b, c->env, c->method, c->loc);
    buf_out_u8(b, values_ref_kind_of(c->field_class));
    buf_out_u64(b, objects_id(c->env, c->field_class));
    buf_out_u64(b, (uint64_t)(uintptr_t)c->field);
    values_out_tagged(b, c->env, c->object);
    if (fa->modification) values_out_jvalue(b, c->env, fa->tag, fa->value);
}

static void field_event(JNIEnv *env, jthread thread, jmethodID method, jlocation loc, jclass field_klass,
                        jobject object, jfieldID field, field_arg *fa) {
    ev_call e;
    if (!ev_enter(&e, env, thread, method, loc)) return;
    e.c.field = field;
    e.c.field_class = field_klass;
    e.c.object = object;
    e.c.object_known = true;
    ev_match(&e, fa->modification ? EK_FIELD_MODIFICATION : EK_FIELD_ACCESS, write_field, fa);
    ev_exit(&e);
}

static void JNICALL cb_field_access(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method, jlocation loc,
                                    jclass field_klass, jobject object, jfieldID field) {
    (void)jvmti;
    field_arg fa = {false, 0, {0}};
    field_event(env, thread, method, loc, field_klass, object, field, &fa);
}

static void JNICALL cb_field_modification(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jmethodID method,
                                          jlocation loc, jclass field_klass, jobject object, jfieldID field,
                                          char sig_type, jvalue new_value) {
    (void)jvmti;
    field_arg fa = {true, values_tag_of_signature((char[]){sig_type, 0}), new_value};
    field_event(env, thread, method, loc, field_klass, object, field, &fa);
}

typedef struct monitor_arg {
    uint8_t kind;
    jlong timeout;
    jboolean timed_out;
} monitor_arg;

static void write_monitor(outbuf *b, ev_ctx *c, void *arg) {
    monitor_arg *m = arg;
    values_out_tagged(b, c->env, c->object);
    values_out_location(b, c->env, c->method, c->loc);
    if (m->kind == EK_MONITOR_WAIT) buf_out_u64(b, (uint64_t)m->timeout);
    if (m->kind == EK_MONITOR_WAITED) buf_out_u8(b, m->timed_out ? 1 : 0);
}

static void monitor_event(JNIEnv *env, jthread thread, jobject object, monitor_arg *m) {
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    jmethodID method = NULL;
    jlocation loc = -1;
    (*base_g.jvmti)->GetFrameLocation(base_g.jvmti, thread, 0, &method, &loc);
    ev_call e;
    ev_begin(&e, t, env, thread, method, loc);
    e.c.object = object;
    e.c.object_known = true;
    /* Waits filter classes by the monitor object's class, contended entries by the location's, as the
     * reference does. */
    if (m->kind == EK_MONITOR_WAIT || m->kind == EK_MONITOR_WAITED) e.c.cls = (*env)->GetObjectClass(env, object);
    ev_match(&e, m->kind, write_monitor, m);
    ev_exit(&e);
}

static void JNICALL cb_contended_enter(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object) {
    (void)jvmti;
    monitor_arg m = {EK_MONITOR_CONTENDED_ENTER, 0, 0};
    monitor_event(env, thread, object, &m);
}

static void JNICALL cb_contended_entered(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object) {
    (void)jvmti;
    monitor_arg m = {EK_MONITOR_CONTENDED_ENTERED, 0, 0};
    monitor_event(env, thread, object, &m);
}

static void JNICALL cb_monitor_wait(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object, jlong timeout) {
    (void)jvmti;
    monitor_arg m = {EK_MONITOR_WAIT, timeout, 0};
    monitor_event(env, thread, object, &m);
}

static void JNICALL cb_monitor_waited(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                      jboolean timed_out) {
    (void)jvmti;
    monitor_arg m = {EK_MONITOR_WAITED, 0, timed_out};
    monitor_event(env, thread, object, &m);
}

void events_init(jvmtiEventCallbacks *cb) {
    cb->Breakpoint = cb_breakpoint;
    cb->SingleStep = cb_single_step;
    cb->FramePop = cb_frame_pop;
    cb->Exception = cb_exception;
    cb->ExceptionCatch = cb_exception_catch;
    cb->ThreadStart = cb_thread_start;
    cb->ThreadEnd = cb_thread_end;
    cb->ClassPrepare = cb_class_prepare;
    cb->MethodEntry = cb_method_entry;
    cb->MethodExit = cb_method_exit;
    cb->FieldAccess = cb_field_access;
    cb->FieldModification = cb_field_modification;
    cb->MonitorContendedEnter = cb_contended_enter;
    cb->MonitorContendedEntered = cb_contended_entered;
    cb->MonitorWait = cb_monitor_wait;
    cb->MonitorWaited = cb_monitor_waited;
}

void events_vm_start(JNIEnv *env, jthread thread) {
    if (!link_connected()) return;
    thread_rec *t = callback_enter(env, thread);
    if (t == NULL) return;
    hits h;
    hits_init(&h);
    hits_begin(&h, 0, EK_VM_START, base_g.opts.suspend ? SP_ALL : SP_NONE);
    callback_hits_send(env, t, t->id, &h);
    filters_hits_free(&h);
    callback_exit(env, t);  /* with suspend=y the main thread parks here until resumed */
}

void events_vm_death(JNIEnv *env) {
    ev_call e;
    ev_begin(&e, NULL, env, NULL, NULL, 0);
    ev_match(&e, EK_VM_DEATH, write_nothing, NULL);
    /* As the reference: a VMDeath a debugger asked to suspend for holds the dying VM, every thread
     * suspended (the event has no thread of its own: EVENT_THREAD suspends them all too), until that
     * debugger resumes; meanwhile it can still look at the VM, as JDI's own test scaffold does.  The
     * link frame says ALL, what the agent did; each composite says what its requests asked. */
    if (e.h.policy != SP_NONE) {
        jthread self = NULL;
        if ((*base_g.jvmti)->GetCurrentThread(base_g.jvmti, &self) == JVMTI_ERROR_NONE) e.t = callback_enter(env, self);
        e.h.policy = e.t != NULL ? SP_ALL : SP_NONE;
    }
    ev_exit(&e);  /* parks here until resumed */
}
