/* Condition programs as the agent receives them: parsed, their structure verified (known opcodes,
 * operands inside the code, table indexes, field ids this agent handed out for that class and
 * type, forward jumps onto instructions, an END last) when the request is set, on the executor
 * thread.  The run itself (cond.c) then checks only what depends on the values. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "catch_filter.h"
#include "cond_parse.h"
#include "live.h"
#include "objects.h"
#include "slots.h"
#include "values.h"

static int arrays_init(JNIEnv *env);

/* ---- parsing ------------------------------------------------------------------------------ */

void cond_parse_prog_free(JNIEnv *env, ext_prog *p) {
    if (p == NULL) return;
    for (uint16_t i = 0; p->classes != NULL && i < p->nclasses; i++)  /* classes stay NULL when parsing */
        if (p->classes[i]) (*env)->DeleteGlobalRef(env, p->classes[i]);       /* stopped before them */
    free(p->classes);
    free(p->string_len);
    free(p->strings);
    free(p->pool);
    free(p->code);
    free(p);
}

static void capture_free(JNIEnv *env, ext_capture *c) {
    if (c == NULL) return;
    for (uint16_t i = 0; c->watches != NULL && i < c->nwatches; i++) cond_parse_prog_free(env, c->watches[i]);
    free(c->watches);
    free(c);
}

void cond_parse_capture_release(JNIEnv *env, ext_capture *c) {
    if (c == NULL) return;
    base_lock_enter();
    bool last = --c->refs == 0;
    base_lock_exit();
    if (last) capture_free(env, c);
}

/* The methods whose conditions read locals, so that a breakpoint elsewhere walks nothing: changed
 * under the agent lock, read without it (a stale answer costs one walk, or one read through JVMTI). */
#define READER_SLOTS 32
static struct { jmethodID method; int count; } readers[READER_SLOTS];
static volatile int readers_elsewhere;  /* programs the table had no slot for: every breakpoint walks */

static void reader_count(jmethodID m, int delta) {
    base_lock_enter();
    int slot = -1;
    for (int i = 0; i < READER_SLOTS; i++) {
        jmethodID held = __atomic_load_n(&readers[i].method, __ATOMIC_RELAXED);
        if (held == m) { slot = i; break; }
        if (held == NULL && slot < 0 && delta > 0) slot = i;
    }
    if (slot < 0) {
        readers_elsewhere += delta;
    } else if ((readers[slot].count += delta) <= 0) {
        readers[slot].count = 0;
        __atomic_store_n(&readers[slot].method, NULL, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&readers[slot].method, m, __ATOMIC_RELEASE);
    }
    base_lock_exit();
}

bool cond_parse_reads_locals_at(jmethodID m) {
    if (readers_elsewhere > 0) return true;
    for (int i = 0; i < READER_SLOTS; i++)
        if (__atomic_load_n(&readers[i].method, __ATOMIC_ACQUIRE) == m) return true;
    return false;
}

void cond_parse_obj_free(JNIEnv *env, ext_obj *o) {
    if (o == NULL) return;
    if (o->counted_reader) reader_count(o->prog->method, -1);
    cond_parse_prog_free(env, o->prog);
    cond_parse_capture_release(env, o->capture);
    catch_filter_free(o->catches);
    free(o);
}

/* Operand bytes of each opcode (-1: unknown opcode). */
int cond_parse_operand_size(uint8_t op) {
    switch (op) {
    case OP_END: case OP_CONST_NULL: case OP_THIS: case OP_ALEN: case OP_SLEN: case OP_SEQ: case OP_SCHAR:
    case OP_ISNULL: case OP_NOT: case OP_POP:
        return 0;
    case OP_CONST_I: case OP_CONST_F: return 4;
    case OP_CONST_J: case OP_CONST_D: return 8;
    case OP_CONST_S: case OP_INSTANCEOF: case OP_CHECKCAST: case OP_JMP: case OP_JMPF: case OP_JMPT:
    case OP_ARITH: case OP_CMP: case OP_CONV:
        return 2;
    case OP_LOCAL: return 3;
    case OP_FIELD: case OP_STATIC: return 11;
    case OP_AGET: case OP_ACMP: return 1;
    default: return -1;
    }
}

/* Structure only (types are checked as the program runs): known opcodes, operands inside the code,
 * indexes inside the tables, jumps forward onto an instruction boundary, an END at the end. */
bool cond_parse_object_tag(uint8_t t) { return t == 'L' || t == '[' || t == 's' || t == 't' || t == 'g' || t == 'l' || t == 'c'; }

static int verify(JNIEnv *env, const ext_prog *p) {
    uint8_t *starts = calloc(p->code_len + 1, 1);
    if (starts == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    int st = 0;
    uint32_t pc = 0;
    uint8_t last = 0xff;
    while (pc < p->code_len && !st) {
        starts[pc] = 1;
        uint8_t op = p->code[pc];
        int n = cond_parse_operand_size(op);
        if (n < 0 || pc + 1 + (uint32_t)n > p->code_len) { st = LS_BAD_MESSAGE; break; }
        const uint8_t *a = p->code + pc + 1;
        if ((op == OP_FIELD || op == OP_STATIC) && buf_be16(a + 1) >= p->nclasses) st = LS_BAD_MESSAGE;
        if ((op == OP_FIELD || op == OP_STATIC) && !st) {
            /* A field id this agent handed out, of the program's class (or a superclass), with the
             * program's type: the run then reads it with JNI only after IsInstanceOf(object, class). */
            jfieldID f;
            uint8_t ftag = 0;
            jclass decl = NULL;
            if (objects_field_check(env, buf_be64(a + 3), p->classes[buf_be16(a + 1)], op == OP_STATIC, &f, &ftag, &decl) != 0)
                st = LS_INVALID_FIELD;
            else if (!(ftag == a[0] || (cond_parse_object_tag(ftag) && a[0] == 'L')))
                st = JVMTI_ERROR_TYPE_MISMATCH;
        }
        if (op == OP_AGET && cond_parse_array_class(a[0]) == NULL) st = LS_BAD_MESSAGE;
        if ((op == OP_INSTANCEOF || op == OP_CHECKCAST) && buf_be16(a) >= p->nclasses) st = LS_BAD_MESSAGE;
        if (op == OP_CONST_S && buf_be16(a) >= p->nstrings) st = LS_BAD_MESSAGE;
        if ((op == OP_LOCAL || op == OP_THIS) && p->method == NULL) st = LS_BAD_MESSAGE;
        last = op;
        pc += 1 + (uint32_t)n;
    }
    if (!st && (pc != p->code_len || last != OP_END)) st = LS_BAD_MESSAGE;
    /* Second pass: jump targets, now that every instruction start is known. */
    for (pc = 0; pc < p->code_len && !st;) {
        uint8_t op = p->code[pc];
        uint32_t next = pc + 1 + (uint32_t)cond_parse_operand_size(op);
        if (op == OP_JMP || op == OP_JMPF || op == OP_JMPT) {
            int16_t off = (int16_t)buf_be16(p->code + pc + 1);
            if (off < 0 || next + (uint32_t)off >= p->code_len || !starts[next + (uint32_t)off]) st = LS_BAD_MESSAGE;
        }
        pc = next;
    }
    free(starts);
    return st;
}

int cond_parse_prog_parse(JNIEnv *env, inbuf *in, ext_prog **out) {
    ext_prog *p = calloc(1, sizeof *p);
    if (p == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    int st = 0;
    p->result_tag = buf_in_u8(in);
    uint64_t mid = buf_in_u64(in);
    (void)buf_in_u16(in);  /* max_stack: the compiler's claim; the run checks against EXT_MAX_STACK itself */
    p->nclasses = buf_in_u16(in);
    if (!in->bad && mid != 0) st = objects_method_check(mid, &p->method);
    if (!st && !in->bad && p->nclasses) {
        p->classes = calloc(p->nclasses, sizeof *p->classes);
        if (p->classes == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
        for (uint16_t i = 0; i < p->nclasses && !st && !in->bad; i++) {
            jclass cls;
            uint64_t id = buf_in_u64(in);
            if (in->bad) break;
            st = values_class_from_id(env, id, &cls);
            if (!st) {
                p->classes[i] = (*env)->NewGlobalRef(env, cls);
                (*env)->DeleteLocalRef(env, cls);
            }
        }
    }
    if (!st && !in->bad) {
        p->nstrings = buf_in_u16(in);
        size_t start = in->pos, units = 0;
        for (uint16_t i = 0; i < p->nstrings && !in->bad; i++) {  /* sizes first: one pool */
            uint16_t n = buf_in_u16(in);
            units += n;
            if (in->pos + 2u * n > in->len) in->bad = true;
            else in->pos += 2u * n;
        }
        in->pos = start;
        if (!in->bad && p->nstrings) {
            p->string_len = calloc(p->nstrings, sizeof *p->string_len);
            p->strings = calloc(p->nstrings, sizeof *p->strings);
            p->pool = calloc(units ? units : 1, sizeof *p->pool);
            if (!p->string_len || !p->strings || !p->pool) st = JVMTI_ERROR_OUT_OF_MEMORY;
            size_t at = 0;
            for (uint16_t i = 0; i < p->nstrings && !st; i++) {
                p->string_len[i] = buf_in_u16(in);
                p->strings[i] = p->pool + at;
                for (uint16_t k = 0; k < p->string_len[i]; k++) p->pool[at++] = buf_in_u16(in);
            }
        }
    }
    if (!st && !in->bad) {
        p->code_len = buf_in_u32(in);
        if (p->code_len == 0 || p->code_len > EXT_MAX_CODE || p->code_len > in->len - in->pos) in->bad = true;
        else if ((p->code = malloc(p->code_len)) == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
        else {
            memcpy(p->code, in->data + in->pos, p->code_len);
            in->pos += p->code_len;
        }
    }
    if (!st && in->bad) st = LS_BAD_MESSAGE;
    if (!st) st = arrays_init(env);
    if (!st) st = verify(env, p);
    if (st) cond_parse_prog_free(env, p);
    else *out = p;
    return st;
}

/* Limits as given (the daemon checks their ranges), each watch a program of its own. */
static int parse_capture(JNIEnv *env, inbuf *in, ext_capture **out) {
    ext_capture *c = calloc(1, sizeof *c);
    if (c == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    c->refs = 1;  /* the modifier's */
    c->frames = buf_in_u16(in);
    c->locals_frames = buf_in_u16(in);
    c->depth = buf_in_u16(in);
    c->max_string = buf_in_u16(in);
    c->max_items = buf_in_u16(in);
    c->max_bytes = buf_in_u32(in);
    c->max_micros = buf_in_u32(in);
    uint8_t what = buf_in_u8(in);
    c->this_object = (what & CW_THIS) != 0;
    c->object_ids = (what & CW_IDS) != 0;
    uint16_t n = buf_in_u16(in);
    int st = in->bad ? LS_BAD_MESSAGE : 0;
    if (!st && c->frames > 256) st = JVMTI_ERROR_ILLEGAL_ARGUMENT;  /* the capture's frame array */
    if (!st && n) {
        c->watches = calloc(n, sizeof *c->watches);
        if (c->watches == NULL) st = JVMTI_ERROR_OUT_OF_MEMORY;
    }
    for (uint16_t i = 0; i < n && !st; i++) {
        uint32_t len = buf_in_u32(in);
        if (in->bad || len > in->len - in->pos) { st = LS_BAD_MESSAGE; break; }
        inbuf sub = {in->data + in->pos + 1, len ? len - 1 : 0, 0, false};
        if (len == 0 || in->data[in->pos] != XO_CONDITION) { st = LS_BAD_MESSAGE; break; }
        in->pos += len;
        st = cond_parse_prog_parse(env, &sub, &c->watches[i]);
        if (!st && !buf_in_done(&sub)) st = LS_BAD_MESSAGE;
        if (!st) c->nwatches = (uint16_t)(i + 1);
    }
    if (st) capture_free(env, c);
    else *out = c;
    return st;
}

int cond_parse_obj_parse(JNIEnv *env, const uint8_t *data, uint32_t len, ext_obj **out) {
    *out = NULL;
    if (len == 0) return 0;  /* a Conditional of a standard client: filters nothing */
    inbuf in = {data, len, 0, false};
    ext_obj *o = calloc(1, sizeof *o);
    if (o == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    o->kind = buf_in_u8(&in);
    int st = 0;
    switch (o->kind) {
    case XO_CONDITION:
        st = cond_parse_prog_parse(env, &in, &o->prog);
        break;
    case XO_BUDGET:
        o->hit_cap = buf_in_u32(&in);
        o->expires_ms = (int64_t)buf_in_u64(&in);
        o->rate = buf_in_u32(&in);
        o->cpu_ppm = buf_in_u32(&in);
        o->flags = buf_in_u32(&in);
        if (!in.bad && (o->expires_ms < 0 || o->cpu_ppm > 1000000 || (o->flags & ~(uint32_t)BF_STOP_ON_ERROR)))
            st = JVMTI_ERROR_ILLEGAL_ARGUMENT;
        break;
    case XO_CAPTURE:
        st = parse_capture(env, &in, &o->capture);
        break;
    case XO_CATCH:
        st = catch_filter_parse(&in, &o->catches);
        break;
    default:
        st = LS_BAD_MESSAGE;
        break;
    }
    if (!st && !buf_in_done(&in)) st = LS_BAD_MESSAGE;
    if (st) {
        cond_parse_obj_free(env, o);
        return st;
    }
    /* Locals are read by a walk when this VM allows it (live.h); the walks are made ready here, on
     * the executor thread, before any event path needs them. */
    if (o->kind == XO_CAPTURE) live_enable(env);
    if (o->kind == XO_CONDITION && o->prog->method != NULL && live_enable(env)) {
        slots_enable(env);
        o->counted_reader = true;
        reader_count(o->prog->method, 1);
    }
    *out = o;
    return 0;
}

/* Array classes to check an AGET's array against, made on the executor thread when the first
 * program is set (FindClass of an array of primitives or of Object loads nothing). */
static jclass arrays[9];
static const char ARRAY_TAGS[] = "ZBCSIJFDL";

jclass cond_parse_array_class(uint8_t tag) {
    for (int i = 0; i < 9; i++)
        if (ARRAY_TAGS[i] == tag) return arrays[i];
    return NULL;
}

static int arrays_init(JNIEnv *env) {
    static const char *const sigs[] = {"[Z", "[B", "[C", "[S", "[I", "[J", "[F", "[D", "[Ljava/lang/Object;"};
    if (arrays[8] != NULL) return 0;
    for (int i = 0; i < 9; i++) {
        jclass local = (*env)->FindClass(env, sigs[i]);
        if (local == NULL) {
            (*env)->ExceptionClear(env);
            return JVMTI_ERROR_INTERNAL;
        }
        if (arrays[i] == NULL) arrays[i] = (*env)->NewGlobalRef(env, local);
        (*env)->DeleteLocalRef(env, local);
    }
    return 0;
}
