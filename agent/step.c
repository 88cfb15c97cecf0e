/* The step machine: a STEP modifier (thread, size MIN/LINE, depth INTO/OVER/OUT) stops where the
 * reference agent stops.  Single-step events are enabled for the stepping thread only; deeper frames
 * that must not stop the step (OVER, OUT, INTO a method without lines or of a filtered class) are
 * left with single-step disabled until their FramePop when the profile holds frame-pop events, and
 * are single-stepped through (slower, same result) when it does not.  An INTO step waiting so watches
 * METHOD_ENTRY too: a method it may stop in, called from the skipped frames, ends the wait.
 *
 * Exceptions: a frame we wait for that an exception unwinds does not turn single-step back on at its
 * FramePop (the reference drops FramePops popped by exceptions); the ExceptionCatch that follows
 * does, at the handler's entry.  HotSpot then never posts the step at the handler's first bytecode
 * (enabling single-step records the thread's current location as already stepped), so such a step
 * ends at the bytecode after the handler's entry at the earliest, as the reference's does.  The same
 * holds for a method whose entry ends an INTO wait. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "colocate.h"
#include "evmode.h"
#include "filters.h"
#include "smap.h"
#include "step.h"
#include "threads.h"

struct step_state {
    filter *f;
    thread_rec *t;
    jthread thread;
    int size, depth;
    int from_depth;
    jmethodID from_method;
    jlocation from_loc;
    int from_line;
    bool waiting_pop;
    int pop_depth;
    /* An OUT step that stopped and stays requested goes on as the reference's does: it stops at a new
     * line of the frame it stopped in until that frame calls a method, then waits for the frame's end. */
    bool out_again;
    /* The stepping frame has returned (its FramePop came): the next step ends it, at whatever depth
     * (a native caller may call Java code deeper, as DestroyJavaVM's Thread.exit after main). */
    bool frame_exited;
    /* INTO waiting with single-step off: METHOD_ENTRY is on for the thread, so that a method the step may
     * stop in, called from the frames it skips, turns single-step back on (the reference's rule). */
    bool entry_watch;
    /* Methods judged by into_target, direct-mapped by id: the entries of skipped code repeat. */
    struct { jmethodID m; bool target; } judged[64];
    /* Frames from this depth on are stepped through where the reference waits with single-step off
     * (no frame-pop events, or no NotifyFramePop possible): 0 when none.  The last step seen there
     * tells how they were left (a return bytecode, or an exception). */
    int through_depth;
    int last_in_depth;
    jmethodID last_in_method;
    jlocation last_in_loc;
    jmethodID code_method;
    jint code_len;
    unsigned char *code;
    /* The lines a step compares in lines_method: its class's default stratum's when it has a SMAP. */
    jmethodID lines_method;
    uint32_t lines_generation;
    jint nlines;
    jvmtiLineNumberEntry *lines;
};

/* The line of loc as the reference's step machine sees it: the table is read in its order up to the
 * first entry that starts after loc, the entry before that wins, and code before the first entry
 * belongs to the first entry's line.  A step compares lines with this rule. */
static int lookup_line(jint n, const jvmtiLineNumberEntry *lines, jlocation loc) {
    if (n <= 0 || loc < 0) return -1;
    jint i = 1;
    while (i < n && loc >= lines[i].start_location) i++;
    return lines[i - 1].line_number;
}

/* Java lines; an obsolete (redefined) method's lines describe other code: it counts as one without. */
static jint java_lines(jmethodID m, jvmtiLineNumberEntry **lines) {
    jint n = 0;
    jboolean obsolete = JNI_FALSE;
    *lines = NULL;
    if ((*base_g.jvmti)->IsMethodObsolete(base_g.jvmti, m, &obsolete) != JVMTI_ERROR_NONE || obsolete ||
        (*base_g.jvmti)->GetLineNumberTable(base_g.jvmti, m, &n, lines) != JVMTI_ERROR_NONE) {
        *lines = NULL;
        return 0;
    }
    return n;
}

/* The table is fetched when the step's method changes, or the default stratum did since: then the line
 * the step started on is read again from the new table, so that the step compares lines of one stratum. */
static int step_line(step_state *s, jmethodID m, jlocation loc) {
    uint32_t generation = smap_stratum_generation();
    if (s->lines_method != m || s->lines_generation != generation) {
        bool restratified = s->lines_method == m;
        base_jvmti_free(s->lines);
        s->lines_method = m;
        s->lines_generation = generation;
        s->nlines = java_lines(m, &s->lines);
        s->nlines = smap_step_lines(m, s->nlines, s->lines);
        if (restratified && m == s->from_method && s->from_loc >= 0)
            s->from_line = s->nlines ? lookup_line(s->nlines, s->lines, s->from_loc) : -1;
    }
    return s->nlines ? lookup_line(s->nlines, s->lines, loc) : -1;
}

/* Whether a step may stop in m judges its Java lines, whatever the stratum makes of them (the
 * reference's rule): a method whose lines the stratum maps to none is still stepped into. */
static bool has_lines(jmethodID m) {
    jvmtiLineNumberEntry *lines = NULL;
    jint n = java_lines(m, &lines);
    base_jvmti_free(lines);
    return n > 0;
}

static void rebase(step_state *s, jthread thread) {
    jint depth = 0;
    jmethodID m = NULL;
    jlocation loc = 0;
    if ((*base_g.jvmti)->GetFrameCount(base_g.jvmti, thread, &depth) != JVMTI_ERROR_NONE) depth = 0;
    s->from_depth = depth;
    if (depth > 0 && (*base_g.jvmti)->GetFrameLocation(base_g.jvmti, thread, 0, &m, &loc) == JVMTI_ERROR_NONE) {
        s->from_method = m;
        s->from_loc = loc;
        s->from_line = step_line(s, m, loc);
    } else {
        s->from_method = NULL;
        s->from_line = -1;
    }
    s->through_depth = 0;
    s->frame_exited = false;
}

static bool is_return_at(step_state *s, jmethodID m, jlocation loc) {
    if (s->code_method != m) {
        base_jvmti_free(s->code);
        s->code = NULL;
        s->code_len = 0;
        s->code_method = m;
        if ((*base_g.jvmti)->GetBytecodes(base_g.jvmti, m, &s->code_len, &s->code) != JVMTI_ERROR_NONE) {
            s->code = NULL;
            s->code_len = 0;
        }
    }
    if (loc < 0 || loc >= s->code_len) return false;
    unsigned char op = s->code[loc];
    return op >= 0xac && op <= 0xb1;  /* ireturn .. return */
}

static void watch_entries(step_state *s, jthread thread, bool on) {
    if (on == s->entry_watch || (on && !base_g.caps.can_generate_method_entry_events)) return;
    evmode_enable(JVMTI_EVENT_METHOD_ENTRY, thread, on);
    s->entry_watch = on;
}

/* Single-step back on after a wait: the current location's own step is then not posted (see the top). */
static void resume_stepping(step_state *s, jthread thread) {
    s->waiting_pop = false;
    watch_entries(s, thread, false);
    evmode_enable(JVMTI_EVENT_SINGLE_STEP, thread, true);
}

/* Wait for the frame at depth 0 to pop with single-step off, if the profile can. Current thread, or a
 * JVMTI-suspended one. */
static bool skip_frame(step_state *s, jthread thread, jint depth_now) {
    if (!base_g.caps.can_generate_frame_pop_events ||
        (*base_g.jvmti)->NotifyFramePop(base_g.jvmti, thread, 0) != JVMTI_ERROR_NONE) {
        if (s->through_depth == 0 || depth_now < s->through_depth) s->through_depth = depth_now;
        return false;
    }
    evmode_enable(JVMTI_EVENT_SINGLE_STEP, thread, false);
    s->waiting_pop = true;
    s->pop_depth = depth_now;
    if (s->depth == SD_INTO) watch_entries(s, thread, true);
    return true;
}

bool step_single_stepping(thread_rec *t) {
    base_lock_enter();
    bool on = t->step != NULL && !t->step->waiting_pop;
    base_lock_exit();
    return on;
}

int step_start(JNIEnv *env, filter *f, jthread thread, int size, int depth) {
    thread_rec *t = threads_rec_of(env, thread);
    if (t == NULL) return LS_INTERNAL;
    if (t->step) return 40;  /* JDWP DUPLICATE: one step per thread */
    /* A thread that ended (or never started) has nothing to step: INVALID_THREAD, as the reference
     * answers (its step set-up asks the thread's frames, which JVMTI refuses as THREAD_NOT_ALIVE). */
    jint state = 0;
    jvmtiError err = (*base_g.jvmti)->GetThreadState(base_g.jvmti, thread, &state);
    if (err != JVMTI_ERROR_NONE) return err;
    if (!(state & JVMTI_THREAD_STATE_ALIVE)) return JVMTI_ERROR_INVALID_THREAD;
    step_state *s = calloc(1, sizeof *s);
    if (s == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    s->f = f;
    s->t = t;
    s->thread = thread;  /* the step filter's own global ref: it outlives the step */
    s->size = size;
    s->depth = depth;
    rebase(s, thread);
    f->step_thread = t;
    t->step = s;
    if (base_g.caps.can_generate_frame_pop_events) evmode_enable(JVMTI_EVENT_FRAME_POP, thread, true);
    if (base_g.caps.can_generate_exception_events) evmode_enable(JVMTI_EVENT_EXCEPTION_CATCH, thread, true);
    evmode_enable(JVMTI_EVENT_SINGLE_STEP, thread, true);
    /* From a native frame (a thread suspended in Thread.sleep, say) the reference single-steps from the
     * start: no FramePop can be asked of such a frame.  The first step in the caller ends OUT and INTO;
     * it ends OVER too, where the reference's OVER never ends (docs/conformance.md). */
    bool from_native = s->from_method != NULL && s->from_loc < 0;
    if (depth == SD_OUT && t->suspend_count > 0 && !from_native) {
        /* NotifyFramePop wants a JVMTI-suspended thread; a parked one can be suspended safely. */
        if (!t->jvmti_suspended && t->parked && t->in_agent > 0 &&
            (*base_g.jvmti)->SuspendThread(base_g.jvmti, thread) == JVMTI_ERROR_NONE)
            t->jvmti_suspended = true;
        if (t->jvmti_suspended) skip_frame(s, thread, s->from_depth);
    }
    if (depth == SD_OUT && !s->waiting_pop && s->from_method != NULL && !from_native) {
        s->through_depth = s->from_depth;
        s->last_in_depth = s->from_depth;
        s->last_in_method = s->from_method;
        s->last_in_loc = s->from_loc;
    }
    return 0;
}

void step_stop(JNIEnv *env, filter *f) {
    (void)env;
    thread_rec *t = f->step_thread;
    if (t == NULL || t->step == NULL || t->step->f != f) return;
    step_state *s = t->step;
    t->step = NULL;
    watch_entries(s, s->thread, false);
    evmode_enable(JVMTI_EVENT_SINGLE_STEP, s->thread, false);
    if (base_g.caps.can_generate_frame_pop_events) evmode_enable(JVMTI_EVENT_FRAME_POP, s->thread, false);
    if (base_g.caps.can_generate_exception_events) evmode_enable(JVMTI_EVENT_EXCEPTION_CATCH, s->thread, false);
    base_jvmti_free(s->lines);
    base_jvmti_free(s->code);
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
    (*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, m, &c.cls);
    bool filtered = false;
    for (int i = 0; i < s->f->nmods && !filtered; i++) {
        modifier *mod = &s->f->mods[i];
        if (mod->kind != MK_CLASS_MATCH && mod->kind != MK_CLASS_EXCLUDE && mod->kind != MK_CLASS_ONLY) continue;
        filter one = *s->f;
        one.nmods = 1;
        one.mods = mod;
        one.expired = false;
        filtered = !filters_matches(&one, &c);
    }
    filters_ctx_free(&c);
    return filtered;
}

/* Whether an INTO step may stop in method m: it has lines (or the step is MIN) and the step's class
 * filters pass it. */
static bool into_target(JNIEnv *env, step_state *s, jthread thread, jmethodID m, jlocation loc) {
    size_t slot = ((uintptr_t)m >> 3) % ARRAY_LEN(s->judged);
    if (s->judged[slot].m == m) return s->judged[slot].target;
    /* The class filters first: they rule out most of what is skipped (the JDK) without a line table. */
    bool target = !class_filtered(env, s, thread, m, loc) && (s->size == SS_MIN || has_lines(m));
    s->judged[slot].m = m;
    s->judged[slot].target = target;
    return target;
}

static bool at_method_start(jmethodID m, jlocation loc) {
    jlocation start = 0, end = 0;
    return (*base_g.jvmti)->GetMethodLocation(base_g.jvmti, m, &start, &end) == JVMTI_ERROR_NONE && loc == start;
}

void step_single_step(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m, jlocation loc) {
    base_lock_enter();
    step_state *s = t->step;
    if (s == NULL || s->waiting_pop) {
        base_lock_exit();
        return;
    }
    jint depth = 0;
    if ((*base_g.jvmti)->GetFrameCount(base_g.jvmti, thread, &depth) != JVMTI_ERROR_NONE) {
        base_lock_exit();
        return;
    }
    if (s->through_depth > 0 && depth < s->through_depth) {
        /* Out of frames stepped through.  Left by an exception, this is the handler's first bytecode,
         * which the reference never sees as a step (its single-step comes on here, see the top). */
        bool returned = s->last_in_depth == s->through_depth && is_return_at(s, s->last_in_method, s->last_in_loc);
        s->through_depth = 0;
        if (!returned) {
            base_lock_exit();
            return;
        }
    }
    bool stop = false;
    if (depth < s->from_depth || s->frame_exited) {
        stop = true;  /* returned from the stepping frame: stop in the caller */
    } else if (depth > s->from_depth) {
        s->out_again = false;
        if (s->depth == SD_INTO && s->size == SS_MIN) {
            stop = true;  /* never skipped (the reference's rule); the report is filtered as any */
        } else if (s->depth == SD_INTO && into_target(env, s, thread, m, loc)) {
            /* Entered from frames stepped through: the reference's MethodEntry turns single-step on here,
             * so the method's first bytecode is no step; the next one is. */
            bool entered = s->through_depth > 0 && depth > s->through_depth && at_method_start(m, loc);
            if (entered) s->through_depth = 0;
            stop = !entered;
        } else {
            skip_frame(s, thread, depth);
        }
    } else if (s->depth != SD_OUT || s->out_again) {
        /* A line step from code without lines (no table, obsolete) has no line to leave: it ends at the
         * next bytecode, as a min step does (the reference's rule). */
        if (m != s->from_method || s->size == SS_MIN) {
            stop = true;
        } else {
            int line = step_line(s, m, loc);  /* first: after a new default stratum it reads from_line again */
            stop = s->from_line < 0 || line != s->from_line;
        }
    }
    if (!stop) {
        if (s->through_depth > 0 && depth >= s->through_depth) {
            s->last_in_depth = depth;
            s->last_in_method = m;
            s->last_in_loc = loc;
        }
        base_lock_exit();
        return;
    }
    filter *f = s->f;
    ev_ctx c;
    memset(&c, 0, sizeof c);
    c.env = env;
    c.thread = thread;
    c.method = m;
    c.loc = loc;
    (*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, m, &c.cls);
    bool report = filters_matches(f, &c);
    filters_ctx_free(&c);
    int32_t request_id = f->request_id;
    uint8_t policy = f->suspend_policy;
    bool expired = f->expired;
    /* Whether reported or filtered out, the step goes on from here if the request stays. */
    rebase(s, thread);
    s->out_again = s->depth == SD_OUT;
    base_lock_exit();
    if (report) colocate_report_step(env, t, thread, m, loc, request_id, policy);
    if (expired) filters_expire_pending(env);
}

void step_frame_pop(JNIEnv *env, thread_rec *t, jthread thread, bool by_exception) {
    (void)env;
    base_lock_enter();
    step_state *s = t->step;
    /* Unwound by an exception: the ExceptionCatch decides where stepping resumes (see the top). */
    bool catch_decides = by_exception && base_g.caps.can_generate_exception_events;
    if (s != NULL && s->waiting_pop && !catch_decides) {
        jint depth = 0;
        (*base_g.jvmti)->GetFrameCount(base_g.jvmti, thread, &depth);
        if (depth > s->pop_depth) {
            /* not the frame waited for */
        } else if (depth == s->from_depth) {
            s->frame_exited = true;
            resume_stepping(s, thread);
        } else if (s->depth == SD_OUT && depth - 1 == s->from_depth &&
                   (*base_g.jvmti)->NotifyFramePop(base_g.jvmti, thread, 1) == JVMTI_ERROR_NONE) {
            /* A callee of the frame an OUT step leaves: wait on for that frame, single-step off. */
            s->pop_depth = depth - 1;
            s->through_depth = 0;
        } else {
            resume_stepping(s, thread);
        }
    }
    base_lock_exit();
}

/* An exception is caught in the current frame (the handler's entry is the current location).  Only a
 * wait that the exception cut short matters: the frame waited for was unwound. */
void step_exception_catch(JNIEnv *env, thread_rec *t, jthread thread) {
    (void)env;
    base_lock_enter();
    step_state *s = t->step;
    jint depth = 0;
    if (s != NULL && s->waiting_pop && (*base_g.jvmti)->GetFrameCount(base_g.jvmti, thread, &depth) == JVMTI_ERROR_NONE &&
        depth < s->pop_depth) {
        /* Still deeper than any place this step may end (OUT: the stepping frame itself): wait for the
         * catching frame instead.  Otherwise step from the handler on. */
        bool deeper = depth > s->from_depth || (depth == s->from_depth && s->depth == SD_OUT);
        s->waiting_pop = false;
        if (!(deeper && skip_frame(s, thread, depth))) {
            resume_stepping(s, thread);
            s->through_depth = 0;  /* the handler's first step is HotSpot's to drop here, not ours */
        }
    }
    base_lock_exit();
}

/* A method entered while an INTO step waits with single-step off (METHOD_ENTRY is on for the thread only
 * then): a method the step may stop in turns single-step back on; the step then ends at its second
 * bytecode at the earliest, as the reference's does. */
void step_method_entry(JNIEnv *env, thread_rec *t, jthread thread, jmethodID m) {
    base_lock_enter();
    step_state *s = t->step;
    if (s != NULL && s->waiting_pop && s->entry_watch && into_target(env, s, thread, m, 0))
        resume_stepping(s, thread);
    base_lock_exit();
}
