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
    (*base_g.jvmti)->ClearBreakpoint(base_g.jvmti, m, loc);
}

bool breakpoints_internal_armed(void) { return internal_method != NULL; }

int breakpoints_add_internal(jmethodID m, jlocation loc) {
    jvmtiError err = (*base_g.jvmti)->SetBreakpoint(base_g.jvmti, m, loc);
    if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE) return (int)err;
    internal_method = m;
    internal_loc = loc;
    return 0;
}

/* Bytes of the instruction at `pc` (0: none there, or one this decoder does not know). */
static uint32_t instruction_size(const unsigned char *code, uint32_t len, uint32_t pc) {
    static const signed char size[202] = {
        /* 0x00 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 2, 3, 3, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1,
        /* 0x20 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1,
        /* 0x40 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        /* 0x60 */ 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        /* 0x80 */ 1, 1, 1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3,
        /* 0xa0 */ 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, -1, -1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3, 3, 3, 3, 5, 5, 3, 2, 3, 1, 1,
        /* 0xc0 */ 3, 3, 1, 1, -2, 4, 3, 3, 5, 5,
    };
    unsigned op = code[pc];
    if (op >= sizeof size || size[op] == 0) return 0;
    if (size[op] > 0) return (uint32_t)size[op];
    if (size[op] == -2) {  /* wide: iinc takes 6 bytes, a load, store or ret 4 */
        if (pc + 1 >= len) return 0;
        return code[pc + 1] == 0x84 ? 6 : 4;
    }
    /* tableswitch, lookupswitch: padding to a multiple of 4, then 32-bit operands */
    uint32_t at = (pc + 4) & ~3u;
    if (at + (op == 0xaa ? 12 : 8) > len) return 0;
    const unsigned char *p = code + at;
    int32_t a = (int32_t)((uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7]);
    int32_t b = (int32_t)((uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 | (uint32_t)p[10] << 8 | p[11]);
    int64_t entries = op == 0xaa ? (int64_t)b - a + 1 : a;  /* high - low + 1, or npairs */
    int64_t bytes = op == 0xaa ? 12 + 4 * entries : 8 + 8 * entries;
    if (entries < 0 || at - pc + bytes > (int64_t)len - pc) return 0;
    return (uint32_t)(at - pc + bytes);
}

/* HotSpot's SetBreakpoint checks only that the index is inside the code: one in the middle of an
 * instruction overwrites an operand byte with the breakpoint opcode, and the thread that runs it
 * reads a wrong constant or jumps wrong (the reference agent lets such a request crash the VM).
 * True only where an instruction starts; true too where the bytecodes cannot be read. */
static bool instruction_starts_at(jmethodID m, jlocation loc) {
    if (!base_g.caps.can_get_bytecodes) return true;
    jint len = 0;
    unsigned char *code = NULL;
    if ((*base_g.jvmti)->GetBytecodes(base_g.jvmti, m, &len, &code) != JVMTI_ERROR_NONE) return true;
    uint32_t pc = 0;
    while (pc < (uint32_t)len && pc < (uint64_t)loc) {
        uint32_t n = instruction_size(code, (uint32_t)len, pc);
        if (n == 0) break;
        pc += n;
    }
    base_jvmti_free(code);
    return (uint64_t)loc == pc;
}

int breakpoints_add(jmethodID m, jlocation loc) {
    for (bp *b = bps; b; b = b->next)
        if (b->method == m && b->loc == loc) {
            b->refs++;
            return 0;
        }
    if (loc >= 0 && !instruction_starts_at(m, loc)) return JVMTI_ERROR_INVALID_LOCATION;
    slots_forget_all();
    jvmtiError err = (*base_g.jvmti)->SetBreakpoint(base_g.jvmti, m, loc);
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

void breakpoints_remove(jmethodID m, jlocation loc) {
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

bool breakpoints_present(jmethodID m, jlocation loc) {
    for (bp *b = bps; b; b = b->next)
        if (b->method == m && b->loc == loc) return true;
    return false;
}

void breakpoints_clear_all(void) {
    while (bps) {
        bp *b = bps;
        bps = b->next;
        clear_physical(b->method, b->loc);
        free(b);
    }
    nbps = 0;
}

int breakpoints_count(void) { return nbps; }

typedef struct watch {
    struct watch *next;
    jclass cls;
    jfieldID field;
    int access, modification;
} watch;

static watch *watches;

int breakpoints_watch_add(JNIEnv *env, jclass cls, jfieldID f, bool access) {
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
        jvmtiError err = access ? (*base_g.jvmti)->SetFieldAccessWatch(base_g.jvmti, cls, f)
                                : (*base_g.jvmti)->SetFieldModificationWatch(base_g.jvmti, cls, f);
        if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE) return (int)err;
    }
    (*refs)++;
    return 0;
}

void breakpoints_watch_remove(JNIEnv *env, jclass cls, jfieldID f, bool access) {
    for (watch **pp = &watches; *pp; pp = &(*pp)->next) {
        watch *w = *pp;
        if (w->field != f || !(*env)->IsSameObject(env, w->cls, cls)) continue;
        int *refs = access ? &w->access : &w->modification;
        if (*refs > 0 && --*refs == 0) {
            if (access) (*base_g.jvmti)->ClearFieldAccessWatch(base_g.jvmti, cls, f);
            else (*base_g.jvmti)->ClearFieldModificationWatch(base_g.jvmti, cls, f);
        }
        if (w->access == 0 && w->modification == 0) {
            *pp = w->next;
            (*env)->DeleteGlobalRef(env, w->cls);
            free(w);
        }
        return;
    }
}

void breakpoints_watch_clear_all(JNIEnv *env) {
    while (watches) {
        watch *w = watches;
        watches = w->next;
        if (w->access) (*base_g.jvmti)->ClearFieldAccessWatch(base_g.jvmti, w->cls, w->field);
        if (w->modification) (*base_g.jvmti)->ClearFieldModificationWatch(base_g.jvmti, w->cls, w->field);
        (*env)->DeleteGlobalRef(env, w->cls);
        free(w);
    }
}
