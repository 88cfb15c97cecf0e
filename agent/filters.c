/* Filters: one per JDWP event request, compiled from SET_REQUEST; matching in modifier order;
 * enabling JVMTI events only while some filter needs them. */
/* POSIX (clock_gettime, strdup, sockets) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "breakpoints.h"
#include "class_names.h"
#include "buf.h"
#include "cond_parse.h"
#include "evmode.h"
#include "ext.h"
#include "filter_list.h"
#include "filters.h"
#include "hits.h"
#include "link.h"
#include "objects.h"
#include "smap.h"
#include "stop_reads.h"
#include "threads.h"
#include "unload.h"
#include "values.h"
#include "vthreads.h"

static int (*step_start_fn)(JNIEnv *env, filter *f, jthread thread, int size, int depth);
static void (*step_stop_fn)(JNIEnv *env, filter *f);

void filters_init(int (*start)(JNIEnv *env, filter *f, jthread thread, int size, int depth),
                  void (*stop)(JNIEnv *env, filter *f)) {
    step_start_fn = start;
    step_stop_fn = stop;
}
static int nfilters;
static uint64_t next_seq = 1;

int filters_count(void) { return nfilters; }


/* The JVMTI event a JDWP kind needs (0: none, the agent raises it itself) and the capability. */
static jvmtiEvent jvmti_event_for(uint8_t kind, int *status) {
    *status = 0;
    switch (kind) {
    case EK_BREAKPOINT:
        if (!base_g.caps.can_generate_breakpoint_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_BREAKPOINT;
    case EK_SINGLE_STEP:
        if (!base_g.caps.can_generate_single_step_events) *status = LS_NOT_CAPABLE;
        return 0;  /* per thread, by the step machine */
    case EK_EXCEPTION:
        if (!base_g.caps.can_generate_exception_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_EXCEPTION;
    case EK_THREAD_START: return JVMTI_EVENT_THREAD_START;
    case EK_THREAD_DEATH: return JVMTI_EVENT_THREAD_END;
    case EK_CLASS_PREPARE: return JVMTI_EVENT_CLASS_PREPARE;
    case EK_METHOD_ENTRY:
        if (!base_g.caps.can_generate_method_entry_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_METHOD_ENTRY;
    case EK_METHOD_EXIT:
    case EK_METHOD_EXIT_WITH_RETURN_VALUE:
        if (!base_g.caps.can_generate_method_exit_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_METHOD_EXIT;
    case EK_FIELD_ACCESS:
        if (!base_g.caps.can_generate_field_access_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_FIELD_ACCESS;
    case EK_FIELD_MODIFICATION:
        if (!base_g.caps.can_generate_field_modification_events) *status = LS_NOT_CAPABLE;
        return JVMTI_EVENT_FIELD_MODIFICATION;
    case EK_MONITOR_CONTENDED_ENTER:
    case EK_MONITOR_CONTENDED_ENTERED:
    case EK_MONITOR_WAIT:
    case EK_MONITOR_WAITED:
        if (!base_g.caps.can_generate_monitor_events) { *status = LS_NOT_CAPABLE; return 0; }
        return kind == EK_MONITOR_CONTENDED_ENTER ? JVMTI_EVENT_MONITOR_CONTENDED_ENTER
             : kind == EK_MONITOR_CONTENDED_ENTERED ? JVMTI_EVENT_MONITOR_CONTENDED_ENTERED
             : kind == EK_MONITOR_WAIT ? JVMTI_EVENT_MONITOR_WAIT : JVMTI_EVENT_MONITOR_WAITED;
    case EK_VM_DEATH:
    case EK_CLASS_UNLOAD:  /* unload.c tracks classes in a second environment */
        return 0;
    default:
        *status = JVMTI_ERROR_INVALID_EVENT_TYPE;
        return 0;
    }
}

static void free_filter(JNIEnv *env, filter *f) {
    for (int i = 0; i < f->nmods; i++) {
        modifier *m = &f->mods[i];
        if (m->ref) (*env)->DeleteGlobalRef(env, m->ref);
        free(m->pattern);
        cond_parse_obj_free(env, m->ext);
    }
    ext_unbind(env, f);
    free(f->mods);
    free(f);
}

/* Undo what installing did: breakpoints, watches, steps, event enabling. Lock held. */
static void uninstall(JNIEnv *env, filter *f) {
    for (int i = 0; i < f->nmods; i++) {
        modifier *m = &f->mods[i];
        if (m->kind == MK_LOCATION_ONLY && f->event_kind == EK_BREAKPOINT) breakpoints_remove(m->method, m->loc);
        if (m->kind == MK_FIELD_ONLY) breakpoints_watch_remove(env, m->ref, m->field, f->event_kind == EK_FIELD_ACCESS);
    }
    if (f->event_kind == EK_SINGLE_STEP) step_stop_fn(env, f);
    int st;
    jvmtiEvent ev = jvmti_event_for(f->event_kind, &st);
    if (ev && !st) evmode_enable(ev, NULL, false);
    if (ev && !st && vthreads_event_twin(ev)) evmode_enable(vthreads_event_twin(ev), NULL, false);
}

static int install(JNIEnv *env, filter *f) {
    int st;
    jvmtiEvent ev = jvmti_event_for(f->event_kind, &st);
    if (st) return st;
    bool has_location = false, has_field = false;
    for (int i = 0; i < f->nmods; i++) {
        modifier *m = &f->mods[i];
        if (m->kind == MK_LOCATION_ONLY && f->event_kind == EK_BREAKPOINT) {
            st = breakpoints_add(m->method, m->loc);
            if (st) {
                m->kind = 0;  /* nothing to undo for this one */
                break;
            }
            has_location = true;
        }
        if (m->kind == MK_FIELD_ONLY && (f->event_kind == EK_FIELD_ACCESS || f->event_kind == EK_FIELD_MODIFICATION)) {
            st = breakpoints_watch_add(env, m->ref, m->field, f->event_kind == EK_FIELD_ACCESS);
            if (st) {
                m->kind = 0;
                break;
            }
            has_field = true;
        }
    }
    /* Breakpoints and watches exist only per location/field: without one the request could never fire. */
    if (!st && f->event_kind == EK_BREAKPOINT && !has_location) st = JVMTI_ERROR_INVALID_LOCATION;
    if (!st && (f->event_kind == EK_FIELD_ACCESS || f->event_kind == EK_FIELD_MODIFICATION) && !has_field)
        st = JVMTI_ERROR_INVALID_FIELDID;
    if (!st && f->event_kind == EK_CLASS_UNLOAD) st = unload_tracking_start(env);
    if (!st && f->event_kind == EK_SINGLE_STEP) {
        modifier *step = NULL;
        for (int i = 0; i < f->nmods; i++)
            if (f->mods[i].kind == MK_STEP) step = &f->mods[i];
        if (step == NULL) st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
        else st = step_start_fn(env, f, step->ref, step->size, step->depth);
    }
    if (st) {
        for (int i = 0; i < f->nmods; i++) {
            modifier *m = &f->mods[i];
            if (m->kind == MK_LOCATION_ONLY && f->event_kind == EK_BREAKPOINT) breakpoints_remove(m->method, m->loc);
            if (m->kind == MK_FIELD_ONLY) breakpoints_watch_remove(env, m->ref, m->field, f->event_kind == EK_FIELD_ACCESS);
        }
        return st;
    }
    if (ev) evmode_enable(ev, NULL, true);
    /* Virtual threads start and end through events of their own (JDK 21+). */
    if (ev && vthreads_event_twin(ev)) evmode_enable(vthreads_event_twin(ev), NULL, true);
    return 0;
}

static int parse_modifier(JNIEnv *env, inbuf *in, modifier *m) {
    m->kind = buf_in_u8(in);
    int st = 0;
    switch (m->kind) {
    case MK_COUNT:
        m->count = buf_in_i32(in);
        if (!in->bad && m->count <= 0) st = JE_INVALID_COUNT;
        break;
    case MK_CONDITIONAL: {  /* exprID and, for the extension's ids, the object (ext.h) */
        uint32_t len = 0;
        buf_in_i32(in);
        const uint8_t *prog = buf_in_blob(in, &len);
        if (!in->bad) st = cond_parse_obj_parse(env, prog, len, &m->ext);
        break;
    }
    case MK_THREAD_ONLY: {
        uint64_t id = buf_in_u64(in);
        jthread th;
        if (!in->bad && !(st = threads_from_id(env, id, &th, NULL))) m->ref = (*env)->NewGlobalRef(env, th);
        break;
    }
    case MK_CLASS_ONLY: {
        uint64_t id = buf_in_u64(in);
        jclass cls;
        if (!in->bad && !(st = values_class_from_id(env, id, &cls))) m->ref = (*env)->NewGlobalRef(env, cls);
        break;
    }
    case MK_CLASS_MATCH:
    case MK_CLASS_EXCLUDE:
    case MK_SOURCE_NAME_MATCH:
        m->pattern = buf_in_str(in);
        break;
    case MK_LOCATION_ONLY: {
        buf_in_u8(in);
        uint64_t cls_id = buf_in_u64(in), mid = buf_in_u64(in), index = buf_in_u64(in);
        (void)cls_id;
        if (!in->bad) st = objects_method_check(mid, &m->method);
        m->loc = (jlocation)index;
        break;
    }
    case MK_EXCEPTION_ONLY: {
        uint64_t id = buf_in_u64(in);
        m->caught = buf_in_u8(in) != 0;
        m->uncaught = buf_in_u8(in) != 0;
        jclass cls;
        if (!in->bad && id != 0 && !(st = values_class_from_id(env, id, &cls))) m->ref = (*env)->NewGlobalRef(env, cls);
        break;
    }
    case MK_FIELD_ONLY: {
        uint64_t cls_id = buf_in_u64(in), fid = buf_in_u64(in);
        jclass cls, decl;
        bool ok = false;
        if (!in->bad && !(st = values_class_from_id(env, cls_id, &cls))) {
            /* The field must belong to that class itself (instance or static). */
            ok = objects_field_check(env, fid, NULL, false, &m->field, NULL, &decl) == 0 && (*env)->IsSameObject(env, decl, cls);
            if (!ok) ok = objects_field_check(env, fid, NULL, true, &m->field, NULL, &decl) == 0 &&
                          (*env)->IsSameObject(env, decl, cls);
            if (!ok) st = LS_INVALID_FIELD;
            else m->ref = (*env)->NewGlobalRef(env, cls);
        }
        break;
    }
    case MK_STEP: {
        uint64_t id = buf_in_u64(in);
        m->size = buf_in_i32(in);
        m->depth = buf_in_i32(in);
        jthread th;
        if (!in->bad && !(st = threads_from_id(env, id, &th, NULL))) m->ref = (*env)->NewGlobalRef(env, th);
        if (!st && (m->size < SS_MIN || m->size > SS_LINE || m->depth < SD_INTO || m->depth > SD_OUT))
            st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
        break;
    }
    case MK_INSTANCE_ONLY: {
        uint64_t id = buf_in_u64(in);
        jobject o;
        if (!in->bad && !(st = values_object_from_id(env, id, &o))) m->ref = (*env)->NewGlobalRef(env, o);
        break;
    }
    case MK_PLATFORM_THREADS_ONLY:
        break;
    default:
        st = LS_BAD_MESSAGE;
        break;
    }
    if (in->bad) return LS_BAD_MESSAGE;
    return st;
}

int filters_set(JNIEnv *env, inbuf *in) {
    filter *f = calloc(1, sizeof *f);
    if (f == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    f->request_id = buf_in_i32(in);
    f->event_kind = buf_in_u8(in);
    f->suspend_policy = buf_in_u8(in);
    uint32_t n = buf_in_u32(in);
    int st = 0;
    if (in->bad || n > in->len) st = LS_BAD_MESSAGE;
    if (!st && f->suspend_policy > SP_ALL) st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
    if (!st) {
        f->mods = calloc(n ? n : 1, sizeof *f->mods);
        if (f->mods == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < n && !st; i++) {
        f->nmods++;
        st = parse_modifier(env, in, &f->mods[i]);
    }
    if (!st && !buf_in_done(in)) st = LS_BAD_MESSAGE;
    if (!st && f->event_kind >= MAX_KIND) st = JVMTI_ERROR_INVALID_EVENT_TYPE;
    if (!st) st = ext_bind(f);
    if (!st) {
        base_lock_enter();
        for (filter *g = *filter_list_head(f->event_kind); g && !st; g = g->next)
            if (g->request_id == f->request_id) st = 40;  /* JDWP DUPLICATE: ids are the daemon's */
        if (!st) st = install(env, f);
        if (!st) {
            f->seq = next_seq++;
            f->next = *filter_list_head(f->event_kind);
            *filter_list_head(f->event_kind) = f;
            nfilters++;
        }
        base_lock_exit();
    }
    if (st) free_filter(env, f);
    return st;
}

static void remove_where(JNIEnv *env, bool all, int32_t request_id, bool expired_only) {
    base_lock_enter();
    for (int k = 0; k < MAX_KIND; k++) {
        filter **pp = filter_list_head((uint8_t)k);
        while (*pp) {
            filter *f = *pp;
            bool hit = all || (expired_only ? f->expired : f->request_id == request_id);
            if (hit) {
                *pp = f->next;
                uninstall(env, f);
                free_filter(env, f);
                nfilters--;
            } else {
                pp = &f->next;
            }
        }
    }
    base_lock_exit();
}

void filters_clear(JNIEnv *env, int32_t request_id) { remove_where(env, false, request_id, false); }

void filters_clear_all(JNIEnv *env) {
    remove_where(env, true, 0, false);
    base_lock_enter();
    breakpoints_clear_all();
    breakpoints_watch_clear_all(env);
    base_lock_exit();
}

void filters_expire_pending(JNIEnv *env) { remove_where(env, false, 0, true); }

/* ---- matching ------------------------------------------------------------------------- */

static const char *ctx_class_name(ev_ctx *c) {
    if (c->class_name || c->cls == NULL) return c->class_name;
    c->class_name = class_names_dotted(c->cls);
    return c->class_name;
}

static const char *ctx_source_name(ev_ctx *c) {
    if (c->source_known) return c->source_name;
    c->source_known = true;
    char *s = NULL;
    if (c->cls && (*base_g.jvmti)->GetSourceFileName(base_g.jvmti, c->cls, &s) == JVMTI_ERROR_NONE) {
        c->source_name = strdup(s);
        base_jvmti_free(s);
    }
    return c->source_name;
}

static jobject ctx_this(ev_ctx *c) {
    if (c->self_known) return c->self;
    c->self_known = true;
    if (c->method == NULL || c->thread == NULL || !base_g.caps.can_access_local_variables) return NULL;
    jint mods = 0;
    if ((*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, c->method, &mods) != JVMTI_ERROR_NONE) return NULL;
    if (mods & 0x0008) return NULL;  /* static; a native frame may still give its `this` */
    jobject self = NULL;
    if ((*base_g.jvmti)->GetLocalInstance(base_g.jvmti, c->thread, 0, &self) == JVMTI_ERROR_NONE) c->self = self;
    return c->self;
}

void filters_ctx_free(ev_ctx *c) {
    free(c->class_name);
    free(c->source_name);
}

bool filters_matches(filter *f, ev_ctx *c) {
    JNIEnv *env = c->env;
    if (f->expired) return false;
    if (f->ext && !ext_before(f)) return false;
    for (int i = 0; i < f->nmods; i++) {
        modifier *m = &f->mods[i];
        switch (m->kind) {
        case MK_COUNT:
            if (--m->count > 0) return false;
            f->expired = true;
            break;
        case MK_THREAD_ONLY:
            if (c->thread == NULL || !(*env)->IsSameObject(env, c->thread, m->ref)) return false;
            break;
        case MK_CLASS_ONLY:
            if (c->cls == NULL || !(*env)->IsAssignableFrom(env, c->cls, m->ref)) return false;
            break;
        case MK_CLASS_MATCH:
            if (!class_names_match(m->pattern, ctx_class_name(c))) return false;
            break;
        case MK_CLASS_EXCLUDE:
            if (class_names_match(m->pattern, ctx_class_name(c))) return false;
            break;
        case MK_LOCATION_ONLY:
            if (c->method != m->method || c->loc != m->loc) return false;
            break;
        case MK_EXCEPTION_ONLY:
            if (c->exception == NULL) return false;
            if (m->ref && !(*env)->IsInstanceOf(env, c->exception, m->ref)) return false;
            if (c->caught ? !m->caught : !m->uncaught) return false;
            break;
        case MK_FIELD_ONLY:
            if (c->field != m->field || c->field_class == NULL || !(*env)->IsSameObject(env, c->field_class, m->ref))
                return false;
            break;
        case MK_STEP:
            if (c->thread == NULL || !(*env)->IsSameObject(env, c->thread, m->ref)) return false;
            break;
        case MK_INSTANCE_ONLY: {
            /* As the reference judges it: a field event's object, else the `this` of the event's frame (for
             * monitor events too, not the monitor); an event with none (a static field or method, a frame
             * whose `this` cannot be read, a kind without a frame) passes. */
            bool field_event = f->event_kind == EK_FIELD_ACCESS || f->event_kind == EK_FIELD_MODIFICATION;
            jobject o = field_event ? c->object : ctx_this(c);
            if (o != NULL && !(*env)->IsSameObject(env, o, m->ref)) return false;
            break;
        }
        case MK_SOURCE_NAME_MATCH:  /* the source names of the class's SMAP count too (the reference's rule) */
            if (!class_names_match(m->pattern, ctx_source_name(c)) &&
                !smap_source_name_match(c->cls, m->pattern, class_names_match))
                return false;
            break;
        case MK_PLATFORM_THREADS_ONLY:
            if (c->thread != NULL && vthreads_is_virtual(env, c->thread)) return false;
            break;
        case MK_CONDITIONAL:  /* in modifier order, as JDWP applies them: a Count after it counts trues */
            if (!ext_condition(f, m->ext, c)) return false;
            break;
        default:
            break;
        }
    }
    return f->ext == NULL || ext_after_match(f);
}

void filters_hits_free(hits *h) {
    if (h->ncaps) ext_captures_release(base_jni_env(), h);
    buf_out_free(&h->body);
}

/* One filter of an event of `kind`: its hit (or its capture, which replaces the event's own hit)
 * when it matches, after the notice that its condition failed if it counted that as true; an
 * extension request's disabled notice either way.  True if it expired. */
static bool match_one(filter *f, uint8_t kind, hit_writer w, ev_ctx *c, hits *h, void *arg) {
    bool matched = filters_matches(f, c);
    if (f->ext) ext_report_failure(f, matched, c, h);
    if (matched && !(f->ext && ext_capture_hit(f, c, h, kind))) {
        hits_begin(h, f->request_id, kind, f->suspend_policy);
        if (w) w(&h->body, c, arg);
    }
    if (f->ext) ext_report_disabled(f, h);
    return f->expired;
}

void filters_match_kind(uint8_t kind, ev_ctx *c, hits *h, hit_writer w, void *arg) {
    bool expired = false;
    for (filter *f = filter_list_of(kind); f; f = f->next) expired |= match_one(f, kind, w, c, h, arg);
    if (expired) filters_expire_pending(c->env);
}

void filters_match_two_kinds(uint8_t k1, hit_writer w1, uint8_t k2, hit_writer w2, ev_ctx *c, hits *h, void *arg) {
    filter *a = filter_list_of(k1), *b = filter_list_of(k2);  /* each list is newest first */
    bool expired = false;
    while (a || b) {
        bool take_a = a && (!b || a->seq > b->seq);
        filter *f = take_a ? a : b;
        if (take_a) a = a->next; else b = b->next;
        expired |= match_one(f, take_a ? k1 : k2, take_a ? w1 : w2, c, h, arg);
    }
    if (expired) filters_expire_pending(c->env);
}

void filters_hits_send_raw(JNIEnv *env, thread_rec *t, uint64_t thread_id, hits *h) {
    /* Captures are read here, without the agent lock (ext.c); a capture whose request went meanwhile
     * comes out of the body, and so may the whole event. */
    if (h->ncaps && ext_captures_run(env, t, h)) filters_expire_pending(env);
    if (h->count == 0) return;
    /* Checked under the lock that a link-loss reset also takes: either the reset comes after this
     * suspension and undoes it, or the event is dropped here without suspending anything. */
    base_lock_enter();
    if (!link_connected()) {
        base_lock_exit();
        return;
    }
    if (t != NULL) threads_apply_suspend_policy(env, t, h->policy);
    base_lock_exit();
    outbuf b;
    buf_out_init(&b, LINK_HEADER_SIZE + 13 + h->body.len);
    /* A stop of one thread at an armed place: its stack and locals go first, in the same write. */
    size_t at = t != NULL && h->policy == SP_EVENT_THREAD
                    ? stop_reads_write(env, t, thread_id, h->stop_thread, h->stop_method, h->stop_loc, &b) : 0;
    buf_out_frame_begin(&b);
    buf_out_u64(&b, thread_id);
    buf_out_u8(&b, h->policy);
    buf_out_u32(&b, (uint32_t)h->count);
    buf_out_bytes(&b, h->body.data, h->body.len);
    buf_out_frame_end_at(&b, at, 0, LK_EVENT, 0);
    /* A frame of nothing but captures that suspend nothing never waits for the daemon: with the
     * link's queue full it is dropped, and counted (docs/extensions.md). */
    int written = 0;
    for (int i = 0; i < h->ncaps; i++) written += h->caps[i].state == CP_WRITTEN;
    if (h->policy == SP_NONE && written > 0 && written + h->nfailures == h->count) {
        if (!link_send_nowait(&b)) h->caps_refused = true;
    } else {
        link_send(&b, true);
    }
}
