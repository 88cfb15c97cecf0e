/* Condition programs, captures and budgets as the daemon sends them in a Conditional modifier:
 * parsed and verified when the request is set (cond_parse.c; docs/extensions.md,
 * protocol/agent_code.py). */
#ifndef JDWPD_COND_PARSE_H
#define JDWPD_COND_PARSE_H

#include "base.h"
#include "buf.h"
#include "catch_filter.h"

/* A condition program, verified when the request is set. */
typedef struct ext_prog {
    uint8_t result_tag;      /* stack type of the result: 'I' for a condition */
    jmethodID method;        /* NULL: reads no local and no `this` */
    uint16_t nclasses;
    jclass *classes;         /* global refs */
    uint16_t nstrings;
    uint16_t *string_len;
    const jchar **strings;   /* into `pool` */
    jchar *pool;
    uint32_t code_len;
    uint8_t *code;
} ext_prog;

/* What a capture reads at a hit (protocol/agent_code.py).  Shared by the modifier that named it
 * and the request bound to it (refs, changed under the agent lock): a capture read outside the
 * lock keeps it alive through its request's reference. */
typedef struct ext_capture {
    int32_t refs;
    uint16_t frames, locals_frames, depth, max_string, max_items;
    uint32_t max_bytes, max_micros;
    bool this_object;        /* CW_THIS: `this` of every frame whose locals are read */
    bool object_ids;         /* CW_IDS: objects and arrays carry their ids */
    uint16_t nwatches;
    ext_prog **watches;
} ext_capture;

/* One object named by a Conditional modifier. */
typedef struct ext_obj {
    uint8_t kind;            /* XO_CONDITION / XO_CAPTURE / XO_BUDGET / XO_CATCH */
    ext_prog *prog;
    ext_capture *capture;
    catch_filter *catches;   /* XO_CATCH */
    uint32_t hit_cap, rate, cpu_ppm, flags;  /* a budget's; flags: BF_* */
    int64_t expires_ms;
    bool counted_reader;     /* a condition reading locals: counted for its method while it lives */
} ext_obj;

/* Parse the program bytes of a Conditional modifier (executor thread).  0 or a status. */
int cond_parse_obj_parse(JNIEnv *env, const uint8_t *data, uint32_t len, ext_obj **out);
void cond_parse_obj_free(JNIEnv *env, ext_obj *o);

/* cond_parse.c: operand bytes of an opcode (-1: unknown); the array class of a component tag. */
int cond_parse_operand_size(uint8_t op);
jclass cond_parse_array_class(uint8_t tag);
bool cond_parse_object_tag(uint8_t t);  /* a JDWP tag of an object (L [ s t g l c) */

void cond_parse_prog_free(JNIEnv *env, ext_prog *p);
int cond_parse_prog_parse(JNIEnv *env, inbuf *in, ext_prog **out);

void cond_parse_capture_release(JNIEnv *env, ext_capture *c);  /* lock taken inside */

/* Whether a condition set in method m reads locals or `this` (a hint, read without the lock: a
 * breakpoint there walks its frames before matching). */
bool cond_parse_reads_locals_at(jmethodID m);


#endif
