/* The step machine: a STEP modifier (thread, size MIN/LINE, depth INTO/OVER/OUT) stops where the
 * reference agent stops.  Single-step events are enabled for the stepping thread only; deeper frames
 * that must not stop the step (OVER, OUT, INTO a method without lines or of a filtered class) are
 * left with single-step disabled until their FramePop when the profile holds frame-pop events, and
 * are single-stepped through (slower, same result) when it does not. */
#include <stdlib.h>
#include <string.h>

#include "filters.h"

struct step_state {
    filter *f;
    thread_rec *t;
    jthread thread;
    int size, depth;
    int from_depth;
    jmethodID from_method;
    int from_line;
    bool waiting_pop;
    int pop_depth;
    jmethodID lines_method;
    jint nlines;
    jvmtiLineNumberEntry *lines;
};

void report_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID method, jlocation loc, int32_t request_id,
                 uint8_t policy);

static int lookup_line(jint n, const jvmtiLineNumberEntry *lines, jlocation loc) {
    int line = -1;
    jlocation best = -1;
    for (jint i = 0; i < n; i++)
        if (lines[i].start_location <= loc && lines[i].start_location >= best) {
            best = lines[i].start_location;
            line = lines[i].line_number;
        }
    return line;
}

static int step_line(step_state *s, jmethodID m, jlocation loc) {
    if (s->lines_method != m) {
        jvmti_free(s->lines);
        s->lines = NULL;
        s->nlines = 0;
        s->lines_method = m;
        if ((*G.jvmti)->GetLineNumberTable(G.jvmti, m, &s->nlines, &s->lines) != JVMTI_ERROR_NONE) {
            s->lines = NULL;
            s->nlines = 0;
        }
    }
    return s->nlines ? lookup_line(s->nlines, s->lines, loc) : -1;
}

static bool has_lines(step_state *s, jmethodID m) {
    step_line(s, m, 0);
    return s->nlines > 0;
}

static void rebase(step_state *s, jthread thread) {
    jint depth = 0;
    jmethodID m = NULL;
    jlocation loc = 0;
    (*G.jvmti)->GetFrameCount(G.jvmti, thread, &depth);
    s->from_depth = depth;
    if (depth > 0 && (*G.jvmti)->GetFrameLocation(G.jvmti, thread, 0, &m, &loc) == JVMTI_ERROR_NONE) {
        s->from_method = m;
        s->from_line = step_line(s, m, loc);
    } else {
        s->from_method = NULL;
        s->from_line = -1;
    }
}

/* Wait for the frame at depth 0 to pop with single-step off, if the profile can. Current thread, or a
 * JVMTI-suspended one. */
static bool skip_frame(step_state *s, jthread thread, jint depth_now) {
    if (!G.caps.can_generate_frame_pop_events) return false;
    if ((*G.jvmti)->NotifyFramePop(G.jvmti, thread, 0) != JVMTI_ERROR_NONE) return false;
    event_enable(JVMTI_EVENT_SINGLE_STEP, thread, false);
    s->waiting_pop = true;
    s->pop_depth = depth_now;
    return true;
}

bool step_single_stepping(thread_rec *t) {
    lock_enter();
    bool on = t->step != NULL && !t->step->waiting_pop;
    lock_exit();
    return on;
}

int step_start(JNIEnv *env, filter *f, jthread thread, int size, int depth) {
    thread_rec *t = thread_rec_of(env, thread);
    if (t == NULL) return LS_INTERNAL;
    if (t->step) return 40;  /* JDWP DUPLICATE: one step per thread */
    step_state *s = calloc(1, sizeof *s);
    if (s == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    s->f = f;
    s->t = t;
    s->thread = t->ref;
    s->size = size;
    s->depth = depth;
    rebase(s, thread);
    f->step_thread = t;
    t->step = s;
    if (G.caps.can_generate_frame_pop_events) event_enable(JVMTI_EVENT_FRAME_POP, thread, true);
    event_enable(JVMTI_EVENT_SINGLE_STEP, thread, true);
    if (depth == SD_OUT && t->suspend_count > 0) {
        /* NotifyFramePop wants a JVMTI-suspended thread; a parked one can be suspended safely. */
        if (!t->jvmti_suspended && t->parked && t->in_agent > 0 &&
            (*G.jvmti)->SuspendThread(G.jvmti, t->ref) == JVMTI_ERROR_NONE)
            t->jvmti_suspended = true;
        if (t->jvmti_suspended) skip_frame(s, thread, s->from_depth);
    }
    return 0;
}

void step_stop(JNIEnv *env, filter *f) {
    (void)env;
    thread_rec *t = f->step_thread;
    if (t == NULL || t->step == NULL || t->step->f != f) return;
    step_state *s = t->step;
    t->step = NULL;
    event_enable(JVMTI_EVENT_SINGLE_STEP, s->thread, false);
    if (G.caps.can_generate_frame_pop_events) event_enable(JVMTI_EVENT_FRAME_POP, s->thread, false);
    jvmti_free(s->lines);
    free(s);
    f->step_thread = NULL;
}

static bool class_filtered(JNIEnv *env, step_state *s, jthread thread, jmethodID m, jlocation loc) {
    ev_ctx c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.thread = thread;
    c.method = m;
    c.loc = loc;
    (*G.jvmti)->GetMethodDeclaringClass(G.jvmti, m, &c.cls);
    bool filtered = false;
    for (int i = 0; i < s->f->nmods && !filtered; i++) {
        modifier *mod = &s->f->mods[i];
        if (mod->kind != MK_CLASS_MATCH && mod->kind != MK_CLASS_EXCLUDE && mod->kind != MK_CLASS_ONLY) continue;
        filter one = *s->f;
        one.nmods = 1;
        one.mods = mod;
        one.expired = false;
        filtered = !filter_matches(&one, &c);
    }
    ctx_free(&c);
    return filtered;
}

void step_single_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m, jlocation loc) {
    lock_enter();
    step_state *s = t->step;
    if (s == NULL || s->waiting_pop) {
        lock_exit();
        return;
    }
    jint depth = 0;
    (*G.jvmti)->GetFrameCount(G.jvmti, thread, &depth);
    bool stop = false;
    if (depth < s->from_depth) {
        stop = true;  /* returned from the stepping frame: stop in the caller */
    } else if (depth > s->from_depth) {
        if (s->depth == SD_INTO && (s->size == SS_MIN || has_lines(s, m)) && !class_filtered(env, s, thread, m, loc))
            stop = true;
        else
            skip_frame(s, thread, depth);
    } else if (s->depth != SD_OUT) {
        if (m != s->from_method || s->size == SS_MIN) stop = true;
        else stop = step_line(s, m, loc) != s->from_line;
    }
    if (!stop) {
        lock_exit();
        return;
    }
    filter *f = s->f;
    ev_ctx c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.thread = thread;
    c.method = m;
    c.loc = loc;
    (*G.jvmti)->GetMethodDeclaringClass(G.jvmti, m, &c.cls);
    bool report = filter_matches(f, &c);
    ctx_free(&c);
    int32_t request_id = f->request_id;
    uint8_t policy = f->suspend_policy;
    bool expired = f->expired;
    /* Whether reported or filtered out, the step goes on from here if the request stays. */
    rebase(s, thread);
    lock_exit();
    if (report) report_step(env, t, thread, m, loc, request_id, policy);
    if (expired) filter_expire_pending(env);
}

void step_frame_pop(JNIEnv *env, thread_rec *t, jthread thread) {
    (void)env;
    lock_enter();
    step_state *s = t->step;
    if (s != NULL && s->waiting_pop) {
        jint depth = 0;
        (*G.jvmti)->GetFrameCount(G.jvmti, thread, &depth);
        if (depth <= s->pop_depth) {
            s->waiting_pop = false;
            event_enable(JVMTI_EVENT_SINGLE_STEP, thread, true);
        }
    }
    lock_exit();
}
