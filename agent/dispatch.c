/* Link request kind -> its handler (the table link_protocol.h generates from protocol/link.py); replies;
 * the requests about the event requests and the start hold, and EXIT. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "buf.h"
#include "dispatch.h"
#include "exec_classes.h"
#include "exec_objects.h"
#include "exec_threads.h"
#include "exec_vm.h"
#include "ext.h"
#include "filters.h"
#include "invoke.h"
#include "link.h"
#include "smap.h"
#include "stop_reads.h"

int dispatch_set_request(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    return filters_set(env, in);
}

int dispatch_clear_request(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    int32_t id = buf_in_i32(in);
    PARSED(in);
    filters_clear(env, id);
    return 0;
}

int dispatch_clear_all_requests(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    PARSED(in);
    filters_clear_all(env);
    return 0;
}

int dispatch_release_start(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env; (void)out;
    PARSED(in);
    base_g.hello_flags &= ~HELLO_SUSPEND_ON_START;
    return 0;
}

static void reply_status(uint32_t id, uint16_t kind, int status) {
    outbuf b;
    buf_out_init(&b, LINK_HEADER_SIZE);
    buf_out_frame_begin(&b);
    buf_out_frame_end(&b, id, kind, (uint16_t)status);
    link_send(&b, false);
}

/* EXIT: the reply goes out, then the transport, then the VM with the code. */
int dispatch_exit(JNIEnv *env, uint32_t id, inbuf *in) {
    (void)env;
    int32_t code = buf_in_i32(in);
    if (!buf_in_done(in)) return LS_BAD_MESSAGE;
    reply_status(id, LK_EXIT, 0);
    link_flush(1000);
    link_shutdown();
    base_log("EXIT %d", code);
    exit(code);
}

/* The handler of every request kind: link_protocol.h's table, generated from protocol/link.py. */
typedef struct handler {
    executor_fn fills;     /* fills the reply body; framed and sent here */
    replier_fn replies;    /* sends its reply itself (or returns a status to send) */
} handler;

static const handler handlers[LINK_KIND_LIMIT] = {
#define FILLS(kind, fn) [kind] = {fn, NULL},
#define REPLIES(kind, fn) [kind] = {NULL, fn},
    LINK_HANDLERS(FILLS, REPLIES)
#undef FILLS
#undef REPLIES
};

static void run_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len);

void dispatch_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len) {
    /* A resume changes nothing a stop's reads hold (a thread at an event is parked or about to be):
     * it counts as run before it runs, so the thread it lets go finds it run at its next stop. */
    bool resumes = kind == LK_THREAD_RESUME || kind == LK_RESUME_ALL;
    if (resumes) __atomic_store_n(&base_g.requests_run, id, __ATOMIC_RELEASE);
    run_request(env, id, kind, body, len);
    if (!resumes) __atomic_store_n(&base_g.requests_run, id, __ATOMIC_RELEASE);
}

static void run_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len) {
    inbuf in = {body, len, 0, false};
    const handler *h = kind < LINK_KIND_LIMIT ? &handlers[kind] : NULL;
    if (h == NULL || (h->fills == NULL && h->replies == NULL)) {
        reply_status(id, kind, LS_UNKNOWN_KIND);
        return;
    }
    if (h->replies != NULL) {
        int st = h->replies(env, id, &in);
        if (st) reply_status(id, kind, st);
        return;
    }
    executor_fn fn = h->fills;
    if ((*env)->PushLocalFrame(env, 64) != 0) {
        (*env)->ExceptionClear(env);
        reply_status(id, kind, JVMTI_ERROR_OUT_OF_MEMORY);
        return;
    }
    outbuf out;
    buf_out_init(&out, 256);
    buf_out_frame_begin(&out);
    int st = fn(env, &in, &out);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        if (st == 0) st = LS_INTERNAL;
    }
    (*env)->PopLocalFrame(env, NULL);
    if (out.oom && st == 0) st = JVMTI_ERROR_OUT_OF_MEMORY;
    if (st < 0 || st > 0xffff) st = LS_INTERNAL;
    buf_out_frame_end(&out, id, kind, (uint16_t)st);
    link_send(&out, false);
}
