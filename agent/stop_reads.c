/* Reads at a stop, done in the event's callback (docs/link.md, "Events").
 *
 * At every hit of a logpoint or breakpoint that holds its thread, the daemon reads the thread's
 * stack and its top frame's primitive locals: a debugger (the Python API at every hit) asks for them
 * at once.  Asked over the link they cost a round trip after the event: a write, a wake-up of the
 * executor and a reply.  Where the daemon armed the stop's location (ARM_READS: a method, an index
 * and the slots of the locals of primitive types visible there), the callback reads them itself and
 * sends a STOP_READS frame just before its EVENT, in the same write: what THREAD_FRAMES(thread, 0, -1)
 * and FRAME_GET_LOCALS(thread, 0, slots) would answer once the thread parks.
 *
 * Read after the suspend policy was applied, so the thread counts as suspended, as the executor
 * would find it, and its frame generation and suspend count are the ones it parks with.  `done` is
 * the id of the last request the executor ran before the reads (dispatch.c): the daemon files them
 * only if every request it sent that may change them had run (jdwpd/daemon/link/agent_link.py).  A read that fails
 * sends nothing: the daemon asks over the link as before.  The table is fixed (no allocation on the
 * event path); a location that finds no room replaces the one at its place. */
#include <string.h>

#include "base.h"
#include "buf.h"
#include "stop_reads.h"
#include "threads.h"
#include "values.h"

#define ARMED_LOCATIONS 256   /* a power of two */
#define ARMED_MAX_SLOTS 32
#define READ_MAX_FRAMES 128   /* deeper stacks are read over the link */
#define PROBES 4

typedef struct armed_at {
    uint64_t method;  /* 0: free */
    int64_t index;
    uint32_t n;
    int32_t slot[ARMED_MAX_SLOTS];
    uint8_t tag[ARMED_MAX_SLOTS];
} armed_at;

static armed_at armed[ARMED_LOCATIONS];  /* agent lock */
static bool any_armed;  /* set once a place is armed (atomics): until then an event takes no lock here */

static size_t place_of(uint64_t method, int64_t index) {
    uint64_t h = (method ^ ((uint64_t)index * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h >> 40) & (ARMED_LOCATIONS - 1);
}

static bool is_primitive(uint8_t tag) {
    switch (tag) {
    case TAG_BOOLEAN: case TAG_BYTE: case TAG_CHAR: case TAG_SHORT: case TAG_INT:
    case TAG_LONG: case TAG_FLOAT: case TAG_DOUBLE:
        return true;
    default:
        return false;
    }
}

int stop_reads_arm_reads(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env; (void)out;
    armed_at a;
    memset(&a, 0, sizeof a);
    a.method = buf_in_u64(in);
    a.index = (int64_t)buf_in_u64(in);
    a.n = buf_in_u32(in);
    if (in->bad || a.method == 0 || (uint64_t)a.n * 5 != in->len - in->pos) return LS_BAD_MESSAGE;
    if (a.n > ARMED_MAX_SLOTS) return JVMTI_ERROR_ILLEGAL_ARGUMENT;  /* read over the link */
    for (uint32_t i = 0; i < a.n; i++) {
        a.slot[i] = buf_in_i32(in);
        a.tag[i] = buf_in_u8(in);
        if (!is_primitive(a.tag[i])) return JVMTI_ERROR_ILLEGAL_ARGUMENT;
    }
    size_t at = place_of(a.method, a.index);
    base_lock_enter();
    size_t pick = at;
    for (size_t p = 0; p < PROBES; p++) {
        armed_at *e = &armed[(at + p) & (ARMED_LOCATIONS - 1)];
        if (e->method == 0 || (e->method == a.method && e->index == a.index)) {
            pick = (at + p) & (ARMED_LOCATIONS - 1);
            break;
        }
    }
    armed[pick] = a;
    base_lock_exit();
    __atomic_store_n(&any_armed, true, __ATOMIC_RELEASE);
    return 0;
}

/* A copy of what is armed at (method, index), taken under the lock; false if nothing is. */
static bool armed_copy(uint64_t method, int64_t index, armed_at *out) {
    size_t at = place_of(method, index);
    bool found = false;
    base_lock_enter();
    for (size_t p = 0; p < PROBES && !found; p++) {
        const armed_at *e = &armed[(at + p) & (ARMED_LOCATIONS - 1)];
        if (e->method == method && e->index == index) {
            *out = *e;
            found = true;
        }
    }
    base_lock_exit();
    return found;
}

/* THREAD_FRAMES(thread, 0, -1)'s reply body, as exec_threads.c writes it; false on any failure. */
static bool write_frames(JNIEnv *env, thread_rec *t, jthread thread, outbuf *b) {
    jvmtiFrameInfo frames[READ_MAX_FRAMES];
    jint got = 0;
    jvmtiError err = (*base_g.jvmti)->GetStackTrace(base_g.jvmti, thread, 0, READ_MAX_FRAMES, frames, &got);
    if (err != JVMTI_ERROR_NONE || got <= 0 || got >= READ_MAX_FRAMES) return false;  /* maybe deeper */
    buf_out_u32(b, (uint32_t)got);
    for (jint i = 0; i < got; i++)
        if (values_out_frame(b, env, frames[i].method, frames[i].location) != JVMTI_ERROR_NONE) return false;
    base_lock_enter();
    buf_out_u64(b, t->frame_generation);
    base_lock_exit();
    return true;
}

/* FRAME_GET_LOCALS(thread, 0, a's slots)'s reply body; false on any failure. */
static bool write_locals(JNIEnv *env, jthread thread, const armed_at *a, outbuf *b) {
    buf_out_u32(b, a->n);
    for (uint32_t i = 0; i < a->n; i++) {
        jvalue v;
        memset(&v, 0, sizeof v);
        jint iv = 0;
        jvmtiError err;
        switch (a->tag[i]) {
        case TAG_LONG: err = (*base_g.jvmti)->GetLocalLong(base_g.jvmti, thread, 0, a->slot[i], &v.j); break;
        case TAG_FLOAT: err = (*base_g.jvmti)->GetLocalFloat(base_g.jvmti, thread, 0, a->slot[i], &v.f); break;
        case TAG_DOUBLE: err = (*base_g.jvmti)->GetLocalDouble(base_g.jvmti, thread, 0, a->slot[i], &v.d); break;
        default:
            err = (*base_g.jvmti)->GetLocalInt(base_g.jvmti, thread, 0, a->slot[i], &iv);
            if (a->tag[i] == TAG_BOOLEAN) v.z = (jboolean)(iv != 0);
            else if (a->tag[i] == TAG_BYTE) v.b = (jbyte)iv;
            else if (a->tag[i] == TAG_CHAR) v.c = (jchar)iv;
            else if (a->tag[i] == TAG_SHORT) v.s = (jshort)iv;
            else v.i = iv;
            break;
        }
        if (err != JVMTI_ERROR_NONE) return false;
        values_out_jvalue(b, env, a->tag[i], v);
    }
    return true;
}

size_t stop_reads_write(JNIEnv *env, thread_rec *t, uint64_t thread_id, jthread thread, jmethodID method,
                        jlocation loc, outbuf *b) {
    armed_at a;
    if (!__atomic_load_n(&any_armed, __ATOMIC_ACQUIRE)) return 0;
    if (method == NULL || thread == NULL || !armed_copy((uint64_t)(uintptr_t)method, (int64_t)loc, &a)) return 0;
    uint32_t done = __atomic_load_n(&base_g.requests_run, __ATOMIC_ACQUIRE);
    size_t start = b->len;
    buf_out_frame_begin(b);
    buf_out_u64(b, thread_id);
    buf_out_u64(b, done);
    base_lock_enter();
    buf_out_u32(b, (uint32_t)t->suspend_count);
    base_lock_exit();
    size_t frames_at = b->len;
    buf_out_u32(b, 0);
    bool ok = write_frames(env, t, thread, b);
    if (ok) {
        buf_out_put_u32_at(b, frames_at, (uint32_t)(b->len - frames_at - 4));
        buf_out_u32(b, 4 + 5 * a.n);  /* the slots, as FRAME_GET_LOCALS asks them */
        buf_out_u32(b, a.n);
        for (uint32_t i = 0; i < a.n; i++) {
            buf_out_u32(b, (uint32_t)a.slot[i]);
            buf_out_u8(b, a.tag[i]);
        }
        size_t values_at = b->len;
        buf_out_u32(b, 0);
        ok = write_locals(env, thread, &a, b);
        if (ok) buf_out_put_u32_at(b, values_at, (uint32_t)(b->len - values_at - 4));
    }
    if (!ok || b->oom) {
        b->len = start;
        return 0;
    }
    buf_out_frame_end_at(b, start, 0, LK_STOP_READS, 0);
    return b->len - start;
}
