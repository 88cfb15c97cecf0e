/* Link request kind -> executor; replies. */
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

static int x_set_request(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    return filters_set(env, in);
}

static int x_clear_request(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    int32_t id = buf_in_i32(in);
    PARSED(in);
    filters_clear(env, id);
    return 0;
}

static int x_clear_all_requests(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    PARSED(in);
    filters_clear_all(env);
    return 0;
}

static int x_release_start(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env; (void)out;
    PARSED(in);
    base_g.hello_flags &= ~HELLO_SUSPEND_ON_START;
    return 0;
}

executor_fn exec_lookup(uint16_t kind) {
    executor_fn f;
    if ((f = exec_vm_lookup(kind)) || (f = exec_classes_lookup(kind)) || (f = exec_objects_lookup(kind)) ||
        (f = exec_threads_lookup(kind)) || (f = exec_ext_lookup(kind)))
        return f;
    switch (kind) {
    case LK_SET_REQUEST: return x_set_request;
    case LK_CLEAR_REQUEST: return x_clear_request;
    case LK_CLEAR_ALL_REQUESTS: return x_clear_all_requests;
    case LK_RELEASE_START: return x_release_start;
    case LK_INVOKE_DETACH: return invoke_detach;
    default: return NULL;
    }
}

static void reply_status(uint32_t id, uint16_t kind, int status) {
    outbuf b;
    buf_out_init(&b, LINK_HEADER_SIZE);
    buf_out_frame_begin(&b);
    buf_out_frame_end(&b, id, kind, (uint16_t)status);
    link_send(&b, false);
}

void dispatch_request(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len) {
    inbuf in = {body, len, 0, false};
    if (kind == LK_INVOKE) {
        /* The parked target thread sends the reply when the call returns. */
        int st = invoke_submit(env, id, &in);
        if (st) reply_status(id, kind, st);
        return;
    }
    if (kind == LK_EXIT) {
        int32_t code = buf_in_i32(&in);
        if (!buf_in_done(&in)) {
            reply_status(id, kind, LS_BAD_MESSAGE);
            return;
        }
        reply_status(id, kind, 0);
        link_flush(1000);
        link_shutdown();
        base_log("EXIT %d", code);
        exit(code);
    }
    executor_fn fn = exec_lookup(kind);
    if (fn == NULL) {
        reply_status(id, kind, LS_UNKNOWN_KIND);
        return;
    }
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
