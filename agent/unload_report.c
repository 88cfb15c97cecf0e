/* Class unloads reported: the CLASS_UNLOADED link message for a class whose id was sent, then the
 * CLASS_UNLOAD hits the requests ask for (the records come from unload.c's queue). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "filters.h"
#include "hits.h"
#include "link.h"
#include "unload.h"
#include "unload_report.h"

static void write_signature(outbuf *b, ev_ctx *c, void *arg) {
    (void)c;
    buf_out_str(b, arg);
}

static void send_class_unloaded(const unload_rec *t) {
    outbuf b;
    buf_out_init(&b, 64 + strlen(t->signature));
    buf_out_frame_begin(&b);
    buf_out_u64(&b, t->id);
    buf_out_str(&b, t->signature);
    buf_out_frame_end(&b, 0, LK_CLASS_UNLOADED, 0);
    link_send(&b, false);  /* small; never waits for room (the writer thread sends these too) */
}

static void send_unload_events(JNIEnv *env, const char *sig) {
    ev_ctx c;
    memset(&c, 0, sizeof c);
    c.env = env;
    /* Patterns match the dotted name, as for the other kinds. */
    size_t n = strlen(sig);
    c.class_name = malloc(n + 1);
    if (c.class_name) {
        const char *s = sig;
        size_t len = n;
        if (sig[0] == 'L' && n >= 2) {
            s = sig + 1;
            len = n - 2;
        }
        for (size_t i = 0; i < len; i++) c.class_name[i] = s[i] == '/' ? '.' : s[i];
        c.class_name[len] = 0;
    }
    hits h;
    hits_init(&h);
    base_lock_enter();
    filters_match_kind(EK_CLASS_UNLOAD, &c, &h, write_signature, (void *)sig);
    /* An unload suspends nothing, whatever its requests ask: the reference's composite for it says
     * NONE and holds no thread (JDI's EventSet.resume() then resumes nothing either). */
    h.policy = SP_NONE;
    base_lock_exit();
    filters_hits_send_raw(env, NULL, 0, &h);
    filters_hits_free(&h);
    filters_ctx_free(&c);
}

/* Called by the writer thread, and before every event (the reference reports the unloads a GC did
 * before the next event); no locks held.  Without a GC since the last call: one flag test. */
void unload_report_pending(JNIEnv *env) {
    unload_rec *list = unload_take_pending();
    while (list) {
        unload_rec *t = list;
        list = t->next;
        /* The daemon's cached facts under this id go first, then the events the requests ask for. */
        if (t->id != 0) send_class_unloaded(t);
        if (unload_tracking_on()) send_unload_events(env, t->signature);
        free(t);
    }
}
