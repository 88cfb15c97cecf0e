/* Physical breakpoints and field watches, reference-counted across filters: many requests, one
 * SetBreakpoint per (method, location), one watch per (class, field). Lock held by callers. */
#include <stdlib.h>

#include "base.h"
#include "breakpoints.h"
#include "slots.h"

typedef struct bp {
    struct bp *next;
    jmethodID method;
    jlocation loc;
    int refs;
} bp;

static bp *bps;
static int nbps;
/* The agent's own breakpoint (app_resume.c): set for good, outside the debuggers' count. */
static jmethodID internal_method;
static jlocation internal_loc;

static void clear_physical(jmethodID m, jlocation loc) {
    if (m == internal_method && loc == internal_loc) return;
    (*G.jvmti)->ClearBreakpoint(G.jvmti, m, loc);
}

bool bp_internal_armed(void) { return internal_method != NULL; }

int bp_add_internal(jmethodID m, jlocation loc) {
    jvmtiError err = (*G.jvmti)->SetBreakpoint(G.jvmti, m, loc);
    if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE) return (int)err;
    internal_method = m;
    internal_loc = loc;
    return 0;
}

int bp_add(jmethodID m, jlocation loc) {
    for (bp *b = bps; b; b = b->next)
        if (b->method == m && b->loc == loc) {
            b->refs++;
            return 0;
        }
    slots_forget_all();
    jvmtiError err = (*G.jvmti)->SetBreakpoint(G.jvmti, m, loc);
    if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE) return (int)err;
    bp *b = calloc(1, sizeof *b);
    if (b == NULL) {
        clear_physical(m, loc);
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    b->method = m;
    b->loc = loc;
    b->refs = 1;
    b->next = bps;
    bps = b;
    nbps++;
    return 0;
}

void bp_remove(jmethodID m, jlocation loc) {
    for (bp **pp = &bps; *pp; pp = &(*pp)->next) {
        bp *b = *pp;
        if (b->method == m && b->loc == loc) {
            if (--b->refs == 0) {
                clear_physical(m, loc);
                *pp = b->next;
                free(b);
                nbps--;
            }
            return;
        }
    }
}

bool bp_present(jmethodID m, jlocation loc) {
    for (bp *b = bps; b; b = b->next)
        if (b->method == m && b->loc == loc) return true;
    return false;
}

void bp_clear_all(void) {
    while (bps) {
        bp *b = bps;
        bps = b->next;
        clear_physical(b->method, b->loc);
        free(b);
    }
    nbps = 0;
}

int bp_count(void) { return nbps; }

typedef struct watch {
    struct watch *next;
    jclass cls;
    jfieldID field;
    int access, modification;
} watch;

static watch *watches;

int watch_add(JNIEnv *env, jclass cls, jfieldID f, bool access) {
    watch *w = watches;
    for (; w; w = w->next)
        if (w->field == f && (*env)->IsSameObject(env, w->cls, cls)) break;
    int *refs = NULL;
    if (w == NULL) {
        w = calloc(1, sizeof *w);
        if (w == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
        w->cls = (*env)->NewGlobalRef(env, cls);
        w->field = f;
        w->next = watches;
        watches = w;
    }
    refs = access ? &w->access : &w->modification;
    if (*refs == 0) {
        jvmtiError err = access ? (*G.jvmti)->SetFieldAccessWatch(G.jvmti, cls, f)
                                : (*G.jvmti)->SetFieldModificationWatch(G.jvmti, cls, f);
        if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE) return (int)err;
    }
    (*refs)++;
    return 0;
}

void watch_remove(JNIEnv *env, jclass cls, jfieldID f, bool access) {
    for (watch **pp = &watches; *pp; pp = &(*pp)->next) {
        watch *w = *pp;
        if (w->field != f || !(*env)->IsSameObject(env, w->cls, cls)) continue;
        int *refs = access ? &w->access : &w->modification;
        if (*refs > 0 && --*refs == 0) {
            if (access) (*G.jvmti)->ClearFieldAccessWatch(G.jvmti, cls, f);
            else (*G.jvmti)->ClearFieldModificationWatch(G.jvmti, cls, f);
        }
        if (w->access == 0 && w->modification == 0) {
            *pp = w->next;
            (*env)->DeleteGlobalRef(env, w->cls);
            free(w);
        }
        return;
    }
}

void watch_clear_all(JNIEnv *env) {
    while (watches) {
        watch *w = watches;
        watches = w->next;
        if (w->access) (*G.jvmti)->ClearFieldAccessWatch(G.jvmti, w->cls, w->field);
        if (w->modification) (*G.jvmti)->ClearFieldModificationWatch(G.jvmti, w->cls, w->field);
        (*env)->DeleteGlobalRef(env, w->cls);
        free(w);
    }
}
