/* Captures: what a logpoint or snapshot reads at a hit, written as one blob (protocol/agent_code.py
 * documents it) that goes out in a JdwpdCapture hit.  The thread never waits for the daemon: the
 * capture is read in the callback, without the agent lock (ext_captures_run), within its limits
 * (frames, locals frames, depth, string length, items, bytes, time), every truncation marked, and
 * the event sent like any other, or dropped and counted while the link's queue is full.
 *
 * Unlike a condition this path allocates (the blob grows in an outbuf; JVMTI hands out variable
 * tables and field lists).  Locals are read in place when only a breakpoint's own frame is read
 * (slots.h), else by one walk (live.h), else through JVMTI (a VM operation each). */
#include <string.h>

#include "base.h"
#include "buf.h"
#include "capture.h"
#include "cond.h"
#include "live.h"
#include "objects.h"
#include "slots.h"
#include "values.h"

typedef struct cap_ctx {
    JNIEnv *env;
    const ext_capture *cap;
    outbuf *out;
    int64_t deadline_ns;
    uint32_t byte_limit;
    size_t flags_at;  /* the blob's flags byte (the buffer may move as it grows) */
    bool over;       /* a limit was reached: the rest is written as 'X' */
    live_view *live; /* the top frames' locals from one walk, or NULL: JVMTI */
    ext_local_reads *reads;
    const slots_view *slots; /* the top frame's read in place, or NULL */
} cap_ctx;

static bool over_budget(cap_ctx *x) {
    if (x->over) return true;
    uint8_t why = 0;
    if (x->byte_limit && x->out->len > x->byte_limit) why = CF_BYTES;
    else if (x->deadline_ns && base_now_ns() > x->deadline_ns) why = CF_TIME;
    if (why) {
        if (!x->out->oom) x->out->data[x->flags_at] |= why;
        x->over = true;
    }
    return x->over;
}

static void put_str(outbuf *b, const char *s) { buf_out_str(b, s); }

static void ob_put_u16_at(outbuf *b, size_t at, uint16_t v) {
    if (b->oom || at + 2 > b->len) return;
    b->data[at] = (uint8_t)(v >> 8);
    b->data[at + 1] = (uint8_t)v;
}

static void put_string(cap_ctx *x, jstring s) {
    JNIEnv *env = x->env;
    jint len = (*env)->GetStringLength(env, s);
    jint keep = len < x->cap->max_string ? len : x->cap->max_string;
    buf_out_u8(x->out, 's');
    buf_out_u32(x->out, (uint32_t)len);
    buf_out_u16(x->out, (uint16_t)keep);
    jchar buf[64];
    for (jint at = 0; at < keep; at += 64) {
        jint n = keep - at < 64 ? keep - at : 64;
        (*env)->GetStringRegion(env, s, at, n, buf);
        for (jint i = 0; i < n; i++) buf_out_u16(x->out, buf[i]);
    }
}

static void put_value(cap_ctx *x, char tag, jvalue v, int depth);

static void put_object(cap_ctx *x, jobject o, int depth) {
    JNIEnv *env = x->env;
    if (o == NULL) { buf_out_u8(x->out, 'N'); return; }
    if (over_budget(x)) { buf_out_u8(x->out, 'X'); return; }
    if ((*env)->IsInstanceOf(env, o, base_g.cls_string)) { put_string(x, o); return; }
    jclass cls = (*env)->GetObjectClass(env, o);
    char *sig = NULL;
    if ((*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, NULL) != JVMTI_ERROR_NONE) {
        buf_out_u8(x->out, 'E');
        buf_out_u8(x->out, XR_OTHER);
        (*env)->DeleteLocalRef(env, cls);
        return;
    }
    if (sig[0] == '[') {
        jint len = (*env)->GetArrayLength(env, o);
        jint keep = depth <= 0 ? 0 : len < x->cap->max_items ? len : x->cap->max_items;
        buf_out_u8(x->out, '[');
        if (x->cap->object_ids) buf_out_u64(x->out, objects_id(env, o));
        put_str(x->out, sig);
        buf_out_u32(x->out, (uint32_t)len);
        buf_out_u16(x->out, (uint16_t)keep);
        char ct = sig[1] == 'L' || sig[1] == '[' ? 'L' : sig[1];
        for (jint i = 0; i < keep; i++) {
            jvalue v;
            memset(&v, 0, sizeof v);
            switch (ct) {
            case 'Z': (*env)->GetBooleanArrayRegion(env, o, i, 1, &v.z); break;
            case 'B': (*env)->GetByteArrayRegion(env, o, i, 1, &v.b); break;
            case 'C': (*env)->GetCharArrayRegion(env, o, i, 1, &v.c); break;
            case 'S': (*env)->GetShortArrayRegion(env, o, i, 1, &v.s); break;
            case 'I': (*env)->GetIntArrayRegion(env, o, i, 1, &v.i); break;
            case 'J': (*env)->GetLongArrayRegion(env, o, i, 1, &v.j); break;
            case 'F': (*env)->GetFloatArrayRegion(env, o, i, 1, &v.f); break;
            case 'D': (*env)->GetDoubleArrayRegion(env, o, i, 1, &v.d); break;
            default: v.l = (*env)->GetObjectArrayElement(env, o, i); break;
            }
            put_value(x, ct, v, depth - 1);
            if (ct == 'L' && v.l) (*env)->DeleteLocalRef(env, v.l);
        }
    } else {
        /* An object by its instance fields, own class first, then up the superclasses: JDK
         * collections too (no code runs in the VM). */
        buf_out_u8(x->out, 'L');
        if (x->cap->object_ids) buf_out_u64(x->out, objects_id(env, o));
        put_str(x->out, sig);
        size_t trunc_at = x->out->len;
        buf_out_u8(x->out, depth <= 0);
        size_t count_at = x->out->len;
        buf_out_u16(x->out, 0);
        uint16_t n = 0;
        for (jclass k = depth > 0 ? (*env)->NewLocalRef(env, cls) : NULL; k != NULL;) {
            jint nf = 0;
            jfieldID *fs = NULL;
            if ((*base_g.jvmti)->GetClassFields(base_g.jvmti, k, &nf, &fs) == JVMTI_ERROR_NONE) {
                for (jint i = 0; i < nf && n < x->cap->max_items && !over_budget(x); i++) {
                    jint mods = 0;
                    char *name = NULL, *fsig = NULL;
                    if ((*base_g.jvmti)->GetFieldModifiers(base_g.jvmti, k, fs[i], &mods) != JVMTI_ERROR_NONE ||
                        (mods & 0x0008) ||
                        (*base_g.jvmti)->GetFieldName(base_g.jvmti, k, fs[i], &name, &fsig, NULL) != JVMTI_ERROR_NONE)
                        continue;
                    char t = fsig[0] == 'L' || fsig[0] == '[' ? 'L' : fsig[0];
                    put_str(x->out, name);
                    jvalue v = values_get_field_value(env, o, k, fs[i], (uint8_t)(t == 'L' ? TAG_OBJECT : t));
                    put_value(x, t, v, depth - 1);
                    if (t == 'L' && v.l) (*env)->DeleteLocalRef(env, v.l);
                    base_jvmti_free(name);
                    base_jvmti_free(fsig);
                    n++;
                }
                if (n >= x->cap->max_items && !x->out->oom) x->out->data[trunc_at] = 1;
                base_jvmti_free(fs);
            }
            jclass super = (*env)->GetSuperclass(env, k);
            (*env)->DeleteLocalRef(env, k);
            k = super;
            if (n >= x->cap->max_items || x->over) {
                if (k) (*env)->DeleteLocalRef(env, k);
                break;
            }
        }
        ob_put_u16_at(x->out, count_at, n);
    }
    base_jvmti_free(sig);
    (*env)->DeleteLocalRef(env, cls);
}

static void put_value(cap_ctx *x, char tag, jvalue v, int depth) {
    switch (tag) {
    case 'Z': buf_out_u8(x->out, 'Z'); buf_out_u8(x->out, v.z ? 1 : 0); break;
    case 'B': buf_out_u8(x->out, 'B'); buf_out_u8(x->out, (uint8_t)v.b); break;
    case 'C': buf_out_u8(x->out, 'C'); buf_out_u16(x->out, v.c); break;
    case 'S': buf_out_u8(x->out, 'S'); buf_out_u16(x->out, (uint16_t)v.s); break;
    case 'I': buf_out_u8(x->out, 'I'); buf_out_u32(x->out, (uint32_t)v.i); break;
    case 'J': buf_out_u8(x->out, 'J'); buf_out_u64(x->out, (uint64_t)v.j); break;
    case 'F': { uint32_t b; memcpy(&b, &v.f, 4); buf_out_u8(x->out, 'F'); buf_out_u32(x->out, b); break; }
    case 'D': { uint64_t b; memcpy(&b, &v.d, 8); buf_out_u8(x->out, 'D'); buf_out_u64(x->out, b); break; }
    default: put_object(x, v.l, depth); break;
    }
}

/* One frame's locals live at its location, as the variable table says. */
static void put_locals(cap_ctx *x, jthread thread, int depth, jmethodID m, jlocation loc) {
    live_view *lv = x->live;
    jint n = 0;
    jvmtiLocalVariableEntry *vars = NULL;
    if ((*base_g.jvmti)->GetLocalVariableTable(base_g.jvmti, m, &n, &vars) != JVMTI_ERROR_NONE) {
        buf_out_u8(x->out, 2);  /* no table (no -g, native): no locals, `this` all the same */
        return;
    }
    buf_out_u8(x->out, 1);
    size_t count_at = x->out->len;
    buf_out_u16(x->out, 0);
    uint16_t kept = 0;
    for (jint i = 0; i < n; i++) {
        jvmtiLocalVariableEntry *e = &vars[i];
        /* `this` is the capture's own item (as JDI leaves it out of a frame's visible variables) */
        bool live = loc >= e->start_location && loc < e->start_location + e->length &&
                    !(e->slot == 0 && strcmp(e->name, "this") == 0);
        if (live && !x->over) {
            char t = e->signature[0] == 'L' || e->signature[0] == '[' ? 'L' : e->signature[0];
            jvalue v;
            memset(&v, 0, sizeof v);
            jvmtiError err = JVMTI_ERROR_NONE;
            bool in_frame = depth == 0 && x->slots && slots_local(x->env, x->slots, e->slot, t, &v);
            bool walked = !in_frame && lv && live_local(x->env, lv, depth, loc, e->slot, t, &v);
            if (in_frame) x->reads->in_frame++; else if (walked) x->reads->walked++; else x->reads->by_jvmti++;
            if (in_frame || walked) {
                if (t == 'Z') v.z = v.i != 0; else if (t == 'B') v.b = (jbyte)v.i;
                else if (t == 'C') v.c = (jchar)v.i; else if (t == 'S') v.s = (jshort)v.i;
            } else switch (t) {
            case 'J': err = (*base_g.jvmti)->GetLocalLong(base_g.jvmti, thread, depth, e->slot, &v.j); break;
            case 'F': err = (*base_g.jvmti)->GetLocalFloat(base_g.jvmti, thread, depth, e->slot, &v.f); break;
            case 'D': err = (*base_g.jvmti)->GetLocalDouble(base_g.jvmti, thread, depth, e->slot, &v.d); break;
            case 'L': err = (*base_g.jvmti)->GetLocalObject(base_g.jvmti, thread, depth, e->slot, &v.l); break;
            default: err = (*base_g.jvmti)->GetLocalInt(base_g.jvmti, thread, depth, e->slot, &v.i);
                if (t == 'Z') v.z = v.i != 0; else if (t == 'B') v.b = (jbyte)v.i;
                else if (t == 'C') v.c = (jchar)v.i; else if (t == 'S') v.s = (jshort)v.i;
                break;
            }
            put_str(x->out, e->name);
            if (err != JVMTI_ERROR_NONE) {
                buf_out_u8(x->out, 'E');
                buf_out_u8(x->out, XR_OTHER);
            } else {
                put_value(x, t, v, x->cap->depth);
                if (t == 'L' && v.l) (*x->env)->DeleteLocalRef(x->env, v.l);
            }
            kept++;
        }
        base_jvmti_free(e->name);
        base_jvmti_free(e->signature);
        base_jvmti_free(e->generic_signature);
    }
    base_jvmti_free(vars);
    ob_put_u16_at(x->out, count_at, kept);
}

/* `this` of a frame: slot 0 of an instance method (the compiler never reuses it); an item, tag 0
 * when not asked, static or native. */
static void put_this(cap_ctx *x, jthread thread, jint depth, jmethodID m, jlocation loc) {
    jint mods = 0;
    if (!x->cap->this_object || (*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, m, &mods) != JVMTI_ERROR_NONE ||
        (mods & (0x0008 | 0x0100))) {  /* static, native */
        buf_out_u8(x->out, 0);
        return;
    }
    jvalue v;
    jobject self = NULL;
    if (depth == 0 && x->slots && slots_local(x->env, x->slots, 0, 'L', &v)) {
        self = v.l;
        x->reads->in_frame++;
    } else if (x->live && live_local(x->env, x->live, depth, loc, 0, 'L', &v)) {
        self = v.l;
        x->reads->walked++;
    } else {
        x->reads->by_jvmti++;
        if ((*base_g.jvmti)->GetLocalInstance(base_g.jvmti, thread, depth, &self) != JVMTI_ERROR_NONE) self = NULL;
    }
    if (self == NULL) {
        buf_out_u8(x->out, 0);
        return;
    }
    put_object(x, self, x->cap->depth);
    (*x->env)->DeleteLocalRef(x->env, self);
}

void capture_write(JNIEnv *env, const ext_capture *cap, jthread thread, jmethodID method, jlocation loc,
                   bool walk, bool at_breakpoint, ext_local_reads *reads, outbuf *out) {
    cap_ctx x = {env, cap, out, cap->max_micros ? base_now_ns() + (int64_t)cap->max_micros * 1000 : 0,
                 cap->max_bytes, 0, false, NULL, reads, NULL};
    if ((*env)->PushLocalFrame(env, 64) != 0) {
        (*env)->ExceptionClear(env);
        buf_out_u8(out, CAPTURE_VERSION);
        buf_out_u8(out, CF_TIME);  /* nothing could be read */
        buf_out_u16(out, 0);
        buf_out_u16(out, 0);
        return;
    }
    buf_out_u8(out, CAPTURE_VERSION);
    x.flags_at = out->len;
    buf_out_u8(out, cap->object_ids ? CF_IDS : 0);
    jvmtiFrameInfo frames[257];
    jint nframes = 0;
    int want = cap->frames ? cap->frames : 1;
    if ((*base_g.jvmti)->GetStackTrace(base_g.jvmti, thread, 0, want + 1, frames, &nframes) != JVMTI_ERROR_NONE) nframes = 0;
    if (nframes > want) {
        nframes = want;
        if (!out->oom) out->data[x.flags_at] |= CF_FRAMES;
    }
    if (nframes == 0) {  /* the event's own place, at least */
        frames[0].method = method;
        frames[0].location = loc;
        nframes = 1;
    }
    buf_out_u16(out, (uint16_t)nframes);
    /* A capture that reads only the top frame's locals (a logpoint's watches, say) reads them in
     * place once the location is known; the first hit's walk learns it. */
    slots_view sv;
    memset(&sv, 0, sizeof sv);
    bool in_place = walk && at_breakpoint && cap->locals_frames <= 1 && slots_open(env, method, loc, &sv);
    live_view lv;
    if (walk && !(in_place && sv.kinds)) {  /* one walk for every frame whose locals are read, `this`, the watches */
        live_load(env, &lv, cap->locals_frames < nframes ? (cap->locals_frames ? cap->locals_frames : 1) : nframes);
        x.live = &lv;
        if (in_place) slots_learn(env, &sv, &lv, loc);
    }
    if (sv.locals && sv.kinds && frames[0].method == method && frames[0].location == loc) x.slots = &sv;
    for (jint d = 0; d < nframes; d++) {
        values_out_location(out, env, frames[d].method, frames[d].location);
        if (d < cap->locals_frames && !over_budget(&x)) {
            put_locals(&x, thread, d, frames[d].method, frames[d].location);
            put_this(&x, thread, d, frames[d].method, frames[d].location);
        } else {
            buf_out_u8(out, 0);
        }
    }
    buf_out_u16(out, cap->nwatches);
    for (uint16_t i = 0; i < cap->nwatches; i++) {
        ext_cell v;
        ext_frame at = {thread, method, loc, x.live, {0, 0, 0}, x.slots};
        int st = cond_run(env, cap->watches[i], &at, &v);
        reads->walked += at.reads.walked;
        reads->by_jvmti += at.reads.by_jvmti;
        reads->in_frame += at.reads.in_frame;
        if (st) {
            buf_out_u8(out, 'E');
            buf_out_u8(out, (uint8_t)st);
        } else if (v.t == 'K') {
            buf_out_u8(out, 's');  /* a string constant: written whole */
            buf_out_u32(out, cap->watches[i]->string_len[v.v.i]);
            buf_out_u16(out, cap->watches[i]->string_len[v.v.i]);
            for (uint16_t k = 0; k < cap->watches[i]->string_len[v.v.i]; k++)
                buf_out_u16(out, cap->watches[i]->strings[v.v.i][k]);
        } else {
            /* the program's result type says what an int on the stack was (boolean, char ...) */
            char t = v.t == 'I' && strchr("ZBCS", cap->watches[i]->result_tag) ? (char)cap->watches[i]->result_tag
                                                                            : v.t;
            if (t == 'Z') v.v.z = v.v.i != 0; else if (t == 'B') v.v.b = (jbyte)v.v.i;
            else if (t == 'C') v.v.c = (jchar)v.v.i; else if (t == 'S') v.v.s = (jshort)v.v.i;
            put_value(&x, t, v.v, cap->depth);
        }
    }
    if (x.live) live_release(env, x.live);
    (*env)->PopLocalFrame(env, NULL);
}
