/* The hits of one EVENT frame (hits.h). */
#include "base.h"
#include "buf.h"
#include "hits.h"

void hits_init(hits *h) {
    /* Empty until a hit is written (the buffer grows on first use): a callback that matches
     * nothing, a false condition included, allocates nothing. */
    h->body.data = NULL;
    h->body.len = h->body.cap = 0;
    h->body.oom = false;
    h->count = 0;
    h->policy = SP_NONE;
    h->ncaps = 0;
    h->caps_run = h->caps_refused = false;
    h->cap_thread = NULL;
    h->cap_method = NULL;
    h->cap_loc = 0;
    h->at_breakpoint = false;
    h->stop_thread = NULL;
    h->stop_method = NULL;
    h->stop_loc = 0;
    h->nfailures = 0;
    h->failure_at = 0;
    h->failure_request = 0;
}

void hits_prepend(hits *h, const uint8_t *data, size_t len) {
    if (len == 0) return;
    outbuf merged;
    buf_out_init(&merged, len + h->body.len);
    buf_out_bytes(&merged, data, len);
    buf_out_bytes(&merged, h->body.data, h->body.len);
    buf_out_free(&h->body);
    h->body = merged;
    for (int i = 0; i < h->ncaps; i++) {  /* captures not yet read move with their hits */
        h->caps[i].hit_at += len;
        h->caps[i].at += len;
    }
    h->failure_at += len;
}

void hits_begin(hits *h, int32_t request_id, uint8_t kind, uint8_t policy) {
    buf_out_u32(&h->body, (uint32_t)request_id);
    buf_out_u8(&h->body, kind);
    if (policy > h->policy) h->policy = policy;
    h->count++;
}
