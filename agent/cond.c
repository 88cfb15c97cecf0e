/* Condition programs run in the event callback (cond_parse.c verified their structure at SET_REQUEST).
 *
 * The run is bounded (forward jumps only, a step cap, a fixed stack on the C stack), allocates
 * nothing (a JNI local frame holds the object references it reads, popped before returning) and
 * checks every operand's type, every object's class before a field read, every index before an
 * element read: a program the daemon got wrong, or a value the program did not expect, makes the
 * condition false with a reason, never a wrong read.  Java's arithmetic exactly (wrapping, division
 * truncating toward zero, MIN / -1, masked shifts, IEEE floats, saturating casts). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "cond.h"
#include "cond_parse.h"
#include "live.h"
#include "slots.h"
#include "values.h"

#define MAX_STEPS 8192

static bool is_array(JNIEnv *env, jobject o);
#define STR_CHUNK 64

/* ---- the run ---------------------------------------------------------------------------- */

/* Java's narrowing of a double/float to int and long: NaN is 0, out of range saturates. */
static jint d2i(double d) {
    if (d != d) return 0;
    if (d >= 2147483647.0) return 2147483647;
    if (d <= -2147483648.0) return (jint)-2147483647 - 1;
    return (jint)d;
}

static jlong d2l(double d) {
    if (d != d) return 0;
    if (d >= 9223372036854775807.0) return INT64_MAX;
    if (d <= -9223372036854775808.0) return INT64_MIN;
    return (jlong)d;
}

static jint shr32(jint a, int n) { return a >= 0 ? a >> n : ~(~a >> n); }
static jlong shr64(jlong a, int n) { return a >= 0 ? a >> n : ~(~a >> n); }

static int arith_i(uint8_t op, jint a, jint b, jint *r) {
    uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
    switch (op) {
    case AR_ADD: *r = (jint)(ua + ub); return 0;
    case AR_SUB: *r = (jint)(ua - ub); return 0;
    case AR_MUL: *r = (jint)(uint32_t)((uint64_t)ua * ub); return 0;
    case AR_DIV:
        if (b == 0) return XR_ARITHMETIC;
        *r = (a == INT32_MIN && b == -1) ? a : a / b;
        return 0;
    case AR_REM:
        if (b == 0) return XR_ARITHMETIC;
        *r = b == -1 ? 0 : a % b;
        return 0;
    case AR_SHL: *r = (jint)(ua << (b & 31)); return 0;
    case AR_SHR: *r = shr32(a, b & 31); return 0;
    case AR_USHR: *r = (jint)(ua >> (b & 31)); return 0;
    case AR_AND: *r = a & b; return 0;
    case AR_OR: *r = a | b; return 0;
    case AR_XOR: *r = a ^ b; return 0;
    default: return XR_TYPE;
    }
}

static int arith_j(uint8_t op, jlong a, jlong b, jlong *r) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case AR_ADD: *r = (jlong)(ua + ub); return 0;
    case AR_SUB: *r = (jlong)(ua - ub); return 0;
    case AR_MUL: *r = (jlong)(ua * ub); return 0;
    case AR_DIV:
        if (b == 0) return XR_ARITHMETIC;
        *r = (a == INT64_MIN && b == -1) ? a : a / b;
        return 0;
    case AR_REM:
        if (b == 0) return XR_ARITHMETIC;
        *r = b == -1 ? 0 : a % b;
        return 0;
    case AR_AND: *r = a & b; return 0;
    case AR_OR: *r = a | b; return 0;
    case AR_XOR: *r = a ^ b; return 0;
    default: return XR_TYPE;
    }
}

static double arith_d(uint8_t op, double a, double b, int *st) {
    switch (op) {
    case AR_ADD: return a + b;
    case AR_SUB: return a - b;
    case AR_MUL: return a * b;
    case AR_DIV: return a / b;
    case AR_REM: return fmod(a, b);  /* Java's % on floating point truncates, as fmod */
    default: *st = XR_TYPE; return 0;
    }
}

#define CMP(a, b, cc) ((cc) == CC_EQ ? (a) == (b) : (cc) == CC_NE ? (a) != (b) : (cc) == CC_LT ? (a) < (b) \
                       : (cc) == CC_GE ? (a) >= (b) : (cc) == CC_GT ? (a) > (b) : (a) <= (b))

/* Characters of a string operand (a VM String or a constant) from `at`, at most n, into buf. */
static int str_len(JNIEnv *env, const ext_prog *p, const ext_cell *c, jint *len) {
    if (c->t == 'K') { *len = p->string_len[c->v.i]; return 0; }
    if (c->t != 'L') return XR_TYPE;
    if (c->v.l == NULL) return XR_NULL;
    if (!(*env)->IsInstanceOf(env, c->v.l, base_g.cls_string)) return XR_TYPE;
    *len = (*env)->GetStringLength(env, c->v.l);
    return 0;
}

static void str_chars(JNIEnv *env, const ext_prog *p, const ext_cell *c, jint at, jint n, jchar *buf) {
    if (c->t == 'K') memcpy(buf, p->strings[c->v.i] + at, (size_t)n * sizeof(jchar));
    else (*env)->GetStringRegion(env, c->v.l, at, n, buf);
}

static int str_equals(JNIEnv *env, const ext_prog *p, const ext_cell *a, const ext_cell *b, jint *r) {
    jint la, lb;
    int st = str_len(env, p, a, &la);
    if (st) return st;
    if (b->t == 'L' && b->v.l == NULL) { *r = 0; return 0; }  /* equals(null) is false */
    if (b->t == 'L' && !(*env)->IsInstanceOf(env, b->v.l, base_g.cls_string)) { *r = 0; return 0; }
    if ((st = str_len(env, p, b, &lb))) return st;
    *r = 0;
    if (la != lb) return 0;
    jchar ba[STR_CHUNK], bb[STR_CHUNK];
    for (jint at = 0; at < la; at += STR_CHUNK) {
        jint n = la - at < STR_CHUNK ? la - at : STR_CHUNK;
        str_chars(env, p, a, at, n, ba);
        str_chars(env, p, b, at, n, bb);
        if (memcmp(ba, bb, (size_t)n * sizeof(jchar)) != 0) return 0;
    }
    *r = 1;
    return 0;
}

/* A value read with a JNI tag, as a stack cell (narrow ints widened as Java widens them). */
static ext_cell widen(uint8_t tag, jvalue v) {
    ext_cell c;
    memset(&c, 0, sizeof c);
    switch (tag) {
    case 'Z': c.t = 'I'; c.v.i = v.z ? 1 : 0; break;
    case 'B': c.t = 'I'; c.v.i = v.b; break;
    case 'C': c.t = 'I'; c.v.i = v.c; break;
    case 'S': c.t = 'I'; c.v.i = v.s; break;
    case 'I': c.t = 'I'; c.v.i = v.i; break;
    case 'J': c.t = 'J'; c.v.j = v.j; break;
    case 'F': c.t = 'F'; c.v.f = v.f; break;
    case 'D': c.t = 'D'; c.v.d = v.d; break;
    default: c.t = 'L'; c.v.l = v.l; break;
    }
    return c;
}

#define NEED(n) do { if (sp < (n)) return XR_TYPE; } while (0)
#define TYPE(k, want) do { if (s[sp - (k)].t != (want)) return XR_TYPE; } while (0)
#define PUSH(cell) do { if (sp >= EXT_MAX_STACK) return XR_OTHER; s[sp++] = (cell); } while (0)
#define PUSH_I(x) do { ext_cell c_; c_.t = 'I'; c_.v.j = 0; c_.v.i = (x); PUSH(c_); } while (0)

/* HotSpot reads a platform thread's locals and `this` in a VM operation (a safepoint: tens of
 * microseconds here) even for the current thread, so each slot is read once per run. */
#define LOCAL_CACHE 8

static int run(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out) {
    jthread thread = at->thread;
    ext_cell s[EXT_MAX_STACK];
    int sp = 0;
    struct { jint slot; uint8_t tag; ext_cell v; } cache[LOCAL_CACHE];
    int ncache = 0;
    bool have_this = false;
    ext_cell this_cell;
    memset(&this_cell, 0, sizeof this_cell);
    uint32_t pc = 0;
    jvmtiEnv *jv = base_g.jvmti;
    for (int steps = 0; steps < MAX_STEPS; steps++) {
        if (pc >= p->code_len) return XR_TYPE;
        uint8_t op = p->code[pc];
        const uint8_t *a = p->code + pc + 1;
        pc += 1 + (uint32_t)cond_parse_operand_size(op);
        ext_cell c;
        memset(&c, 0, sizeof c);
        switch (op) {
        case OP_END:
            NEED(1);
            *out = s[sp - 1];
            return 0;
        case OP_CONST_I: c.t = 'I'; c.v.i = (jint)buf_be32(a); PUSH(c); break;
        case OP_CONST_J: c.t = 'J'; c.v.j = (jlong)buf_be64(a); PUSH(c); break;
        case OP_CONST_F: { uint32_t bits = buf_be32(a); c.t = 'F'; memcpy(&c.v.f, &bits, 4); PUSH(c); break; }
        case OP_CONST_D: { uint64_t bits = buf_be64(a); c.t = 'D'; memcpy(&c.v.d, &bits, 8); PUSH(c); break; }
        case OP_CONST_NULL: c.t = 'L'; c.v.l = NULL; PUSH(c); break;
        case OP_CONST_S: c.t = 'K'; c.v.i = buf_be16(a); PUSH(c); break;
        case OP_LOCAL: {
            uint8_t tag = a[0];
            jint slot = buf_be16(a + 1);
            int hit = -1;
            for (int k = 0; k < ncache; k++)
                if (cache[k].slot == slot && cache[k].tag == tag) hit = k;
            if (hit >= 0) {
                PUSH(cache[hit].v);
                break;
            }
            jvmtiError err = JVMTI_ERROR_NONE;
            jvalue v;
            memset(&v, 0, sizeof v);
            bool in_frame = at->slots && slots_local(env, at->slots, slot, (char)tag, &v);
            bool live = !in_frame && at->live && strchr("ZBCSIJFDL", tag) &&
                        live_local(env, at->live, 0, at->loc, slot, (char)tag, &v);
            if (in_frame || live) {
                if (tag == 'Z') v.z = v.i != 0; else if (tag == 'B') v.b = (jbyte)v.i;
                else if (tag == 'C') v.c = (jchar)v.i; else if (tag == 'S') v.s = (jshort)v.i;
            } else switch (tag) {
            case 'Z': case 'B': case 'C': case 'S': case 'I': err = (*jv)->GetLocalInt(jv, thread, 0, slot, &v.i);
                if (tag == 'Z') v.z = v.i != 0; else if (tag == 'B') v.b = (jbyte)v.i;
                else if (tag == 'C') v.c = (jchar)v.i; else if (tag == 'S') v.s = (jshort)v.i;
                break;
            case 'J': err = (*jv)->GetLocalLong(jv, thread, 0, slot, &v.j); break;
            case 'F': err = (*jv)->GetLocalFloat(jv, thread, 0, slot, &v.f); break;
            case 'D': err = (*jv)->GetLocalDouble(jv, thread, 0, slot, &v.d); break;
            case 'L': err = (*jv)->GetLocalObject(jv, thread, 0, slot, &v.l); break;
            default: return XR_TYPE;
            }
            if (err != JVMTI_ERROR_NONE) return XR_OTHER;
            if (in_frame) at->reads.in_frame++; else if (live) at->reads.walked++; else at->reads.by_jvmti++;
            c = widen(tag, v);
            if (ncache < LOCAL_CACHE) {
                cache[ncache].slot = slot;
                cache[ncache].tag = tag;
                cache[ncache++].v = c;
            }
            PUSH(c);
            break;
        }
        case OP_THIS: {
            if (!have_this) {
                jobject self = NULL;
                jvalue v;
                /* slot 0 of an instance method: the compiler never reuses it */
                if (at->slots && slots_local(env, at->slots, 0, 'L', &v)) {
                    self = v.l;
                    at->reads.in_frame++;
                } else if (at->live && live_local(env, at->live, 0, at->loc, 0, 'L', &v)) {
                    self = v.l;
                    at->reads.walked++;
                } else if ((*jv)->GetLocalInstance(jv, thread, 0, &self) != JVMTI_ERROR_NONE) {
                    return XR_OTHER;
                } else {
                    at->reads.by_jvmti++;
                }
                this_cell.t = 'L';
                this_cell.v.l = self;
                have_this = true;
            }
            PUSH(this_cell);
            break;
        }
        case OP_FIELD: case OP_STATIC: {
            uint8_t tag = cond_parse_object_tag(a[0]) ? 'L' : a[0];
            jclass cls = p->classes[buf_be16(a + 1)];
            jfieldID f = (jfieldID)(uintptr_t)buf_be64(a + 3);  /* checked against cls when the program was set */
            jobject obj = NULL;
            if (op == OP_FIELD) {
                NEED(1); TYPE(1, 'L');
                obj = s[--sp].v.l;
                if (obj == NULL) return XR_NULL;
                if (!(*env)->IsInstanceOf(env, obj, cls)) return XR_TYPE;
            }
            PUSH(widen(tag, values_get_field_value(env, obj, cls, f, tag)));
            break;
        }
        case OP_ALEN:
            NEED(1); TYPE(1, 'L');
            if (s[sp - 1].v.l == NULL) return XR_NULL;
            if (!is_array(env, s[sp - 1].v.l)) return XR_TYPE;
            s[sp - 1].t = 'I';
            s[sp - 1].v.i = (*env)->GetArrayLength(env, s[sp - 1].v.l);
            break;
        case OP_AGET: {
            uint8_t tag = a[0];
            NEED(2); TYPE(1, 'I'); TYPE(2, 'L');
            jint i = s[sp - 1].v.i;
            jobject arr = s[sp - 2].v.l;
            sp -= 2;
            if (arr == NULL) return XR_NULL;
            jclass want = cond_parse_array_class(tag);
            if (want == NULL || !(*env)->IsInstanceOf(env, arr, want)) return XR_TYPE;
            if (i < 0 || i >= (*env)->GetArrayLength(env, arr)) return XR_INDEX;
            jvalue v;
            memset(&v, 0, sizeof v);
            switch (tag) {
            case 'Z': (*env)->GetBooleanArrayRegion(env, arr, i, 1, &v.z); break;
            case 'B': (*env)->GetByteArrayRegion(env, arr, i, 1, &v.b); break;
            case 'C': (*env)->GetCharArrayRegion(env, arr, i, 1, &v.c); break;
            case 'S': (*env)->GetShortArrayRegion(env, arr, i, 1, &v.s); break;
            case 'I': (*env)->GetIntArrayRegion(env, arr, i, 1, &v.i); break;
            case 'J': (*env)->GetLongArrayRegion(env, arr, i, 1, &v.j); break;
            case 'F': (*env)->GetFloatArrayRegion(env, arr, i, 1, &v.f); break;
            case 'D': (*env)->GetDoubleArrayRegion(env, arr, i, 1, &v.d); break;
            default: v.l = (*env)->GetObjectArrayElement(env, arr, i); break;
            }
            PUSH(widen(tag, v));
            break;
        }
        case OP_SLEN: {
            NEED(1);
            jint n;
            int st = str_len(env, p, &s[sp - 1], &n);
            if (st) return st;
            s[sp - 1].t = 'I'; s[sp - 1].v.i = n;
            break;
        }
        case OP_SEQ: {
            NEED(2);
            jint r;
            int st = str_equals(env, p, &s[sp - 2], &s[sp - 1], &r);
            if (st) return st;
            sp -= 2;
            PUSH_I(r);
            break;
        }
        case OP_SCHAR: {
            NEED(2); TYPE(1, 'I');
            jint i = s[sp - 1].v.i, n;
            int st = str_len(env, p, &s[sp - 2], &n);
            if (st) return st;
            if (i < 0 || i >= n) return XR_INDEX;
            jchar ch;
            str_chars(env, p, &s[sp - 2], i, 1, &ch);
            sp -= 2;
            PUSH_I(ch);
            break;
        }
        case OP_INSTANCEOF: case OP_CHECKCAST: {
            NEED(1); TYPE(1, 'L');
            jobject o = s[sp - 1].v.l;
            bool is = o != NULL && (*env)->IsInstanceOf(env, o, p->classes[buf_be16(a)]);
            if (op == OP_CHECKCAST) {
                if (o != NULL && !is) return XR_TYPE;  /* ClassCastException */
            } else {
                s[sp - 1].t = 'I'; s[sp - 1].v.j = 0; s[sp - 1].v.i = is;
            }
            break;
        }
        case OP_ACMP: {
            NEED(2);
            if (s[sp - 1].t == 'K' || s[sp - 2].t == 'K') {  /* a literal string is never == a VM object */
                sp -= 2;
                PUSH_I(a[0] == CC_NE);
                break;
            }
            TYPE(1, 'L'); TYPE(2, 'L');
            bool same = (*env)->IsSameObject(env, s[sp - 1].v.l, s[sp - 2].v.l);
            sp -= 2;
            PUSH_I(a[0] == CC_EQ ? same : !same);
            break;
        }
        case OP_ISNULL:
            NEED(1); TYPE(1, 'L');
            s[sp - 1].t = 'I'; s[sp - 1].v.i = s[sp - 1].v.l == NULL;
            break;
        case OP_NOT:
            NEED(1); TYPE(1, 'I');
            s[sp - 1].v.i = s[sp - 1].v.i == 0;
            break;
        case OP_POP:
            NEED(1);
            sp--;
            break;
        case OP_ARITH: {
            char t = (char)a[0];
            uint8_t aop = a[1];
            if (aop == AR_NEG) {
                NEED(1); TYPE(1, t);
                ext_cell *x = &s[sp - 1];
                if (t == 'I') x->v.i = (jint)(0u - (uint32_t)x->v.i);
                else if (t == 'J') x->v.j = (jlong)(0u - (uint64_t)x->v.j);
                else if (t == 'F') x->v.f = -x->v.f;
                else if (t == 'D') x->v.d = -x->v.d;
                else return XR_TYPE;
                break;
            }
            bool shift = aop == AR_SHL || aop == AR_SHR || aop == AR_USHR;
            NEED(2); TYPE(2, t);
            if (shift) TYPE(1, 'I'); else TYPE(1, t);
            ext_cell *x = &s[sp - 2], *y = &s[sp - 1];
            int st = 0;
            if (t == 'I') st = arith_i(aop, x->v.i, y->v.i, &x->v.i);
            else if (t == 'J' && shift) {
                int n = y->v.i & 63;
                x->v.j = aop == AR_SHL ? (jlong)((uint64_t)x->v.j << n)
                       : aop == AR_SHR ? shr64(x->v.j, n) : (jlong)((uint64_t)x->v.j >> n);
            } else if (t == 'J') st = arith_j(aop, x->v.j, y->v.j, &x->v.j);
            else if (t == 'F') x->v.f = (jfloat)arith_d(aop, x->v.f, y->v.f, &st);
            else if (t == 'D') x->v.d = arith_d(aop, x->v.d, y->v.d, &st);
            else st = XR_TYPE;
            if (st) return st;
            sp--;
            break;
        }
        case OP_CMP: {
            char t = (char)a[0];
            uint8_t cc = a[1];
            NEED(2); TYPE(1, t); TYPE(2, t);
            ext_cell *x = &s[sp - 2], *y = &s[sp - 1];
            jint r;
            if (t == 'I') r = CMP(x->v.i, y->v.i, cc);
            else if (t == 'J') r = CMP(x->v.j, y->v.j, cc);
            else if (t == 'F') r = CMP(x->v.f, y->v.f, cc);  /* NaN: false, != true, as Java */
            else if (t == 'D') r = CMP(x->v.d, y->v.d, cc);
            else return XR_TYPE;
            sp -= 2;
            PUSH_I(r);
            break;
        }
        case OP_CONV: {
            char from = (char)a[0], to = (char)a[1];
            NEED(1); TYPE(1, from);
            ext_cell *x = &s[sp - 1];
            double d = from == 'I' ? x->v.i : from == 'J' ? (double)x->v.j : from == 'F' ? x->v.f : x->v.d;
            if (from != 'I' && from != 'J' && from != 'F' && from != 'D') return XR_TYPE;
            ext_cell r;
            memset(&r, 0, sizeof r);
            switch (to) {
            case 'I': r.t = 'I';
                r.v.i = from == 'I' ? x->v.i : from == 'J' ? (jint)(uint32_t)(uint64_t)x->v.j : d2i(d);
                break;
            case 'J': r.t = 'J';
                r.v.j = from == 'I' ? (jlong)x->v.i : from == 'J' ? x->v.j : d2l(d);
                break;
            case 'F': r.t = 'F';
                r.v.f = from == 'J' ? (jfloat)x->v.j : (jfloat)d;  /* a long rounds once, as Java's l2f */
                break;
            case 'D': r.t = 'D';
                r.v.d = from == 'J' ? (jdouble)x->v.j : d;
                break;
            case 'B': if (from != 'I') return XR_TYPE; r.t = 'I'; r.v.i = (jbyte)x->v.i; break;
            case 'C': if (from != 'I') return XR_TYPE; r.t = 'I'; r.v.i = (jchar)x->v.i; break;
            case 'S': if (from != 'I') return XR_TYPE; r.t = 'I'; r.v.i = (jshort)x->v.i; break;
            default: return XR_TYPE;
            }
            *x = r;
            break;
        }
        case OP_JMP:
            pc += (uint32_t)(int16_t)buf_be16(a);
            break;
        case OP_JMPF: case OP_JMPT:
            NEED(1); TYPE(1, 'I');
            sp--;
            if ((s[sp].v.i != 0) == (op == OP_JMPT)) pc += (uint32_t)(int16_t)buf_be16(a);
            break;
        default:
            return XR_TYPE;
        }
    }
    return XR_OTHER;  /* the step bound */
}

static bool is_array(JNIEnv *env, jobject o) {
    jclass cls = (*env)->GetObjectClass(env, o);
    jboolean is = JNI_FALSE;
    jvmtiError err = (*base_g.jvmti)->IsArrayClass(base_g.jvmti, cls, &is);
    (*env)->DeleteLocalRef(env, cls);
    return err == JVMTI_ERROR_NONE && is;
}

int cond_run(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out) {
    if (p->method != NULL && p->method != at->method) return XR_OTHER;  /* compiled for another frame */
    if ((*env)->ExceptionCheck(env)) return XR_OTHER;
    int st = run(env, p, at, out);
    if ((*env)->ExceptionCheck(env)) {  /* nothing above should throw; never leave one behind */
        (*env)->ExceptionClear(env);
        if (!st) st = XR_OTHER;
    }
    return st;
}

int cond_eval(JNIEnv *env, const ext_prog *p, ext_frame *at, ext_cell *out) {
    if ((*env)->PushLocalFrame(env, 32) != 0) {
        (*env)->ExceptionClear(env);
        return XR_OTHER;
    }
    int st = cond_run(env, p, at, out);
    (*env)->PopLocalFrame(env, NULL);
    if (!st && out->t == 'L') out->v.l = NULL;  /* popped with the frame */
    return st;
}
