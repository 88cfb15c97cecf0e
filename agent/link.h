/* The agent link: socket, secret, framing, the reader and writer agent threads, the outbound queue. */
#ifndef JDWPD_LINK_H
#define JDWPD_LINK_H

#include "base.h"
#include "buf.h"

/* What the link calls in the modules above it, handed over once at link_start (the link is the
 * transport: it knows no request, no filter, no thread record). */
typedef struct link_handlers {
    /* Reader thread: execute one request; writes the reply (or hands it over, INVOKE). */
    void (*request)(JNIEnv *env, uint32_t id, uint16_t kind, const uint8_t *body, size_t len);
    /* Reader thread, once the socket is closed and the queue emptied: undo what the daemon did. */
    void (*lost)(JNIEnv *env);
    /* Writer thread, every 100 ms while connected and idle, if (*idle_wanted)() says so. */
    bool (*idle_wanted)(void);
    void (*idle)(JNIEnv *env);
} link_handlers;

int link_start(JNIEnv *env, const link_handlers *h);  /* start the agent threads */
void link_finish_handshake(jlong timeout_ms);  /* at VM death: a handshake under way ends first */
void link_vm_death(JNIEnv *env);        /* flush, shut the socket, quiesce our threads */
bool link_connected(void);              /* authenticated daemon present */
bool link_wait_connected(jlong timeout_ms);  /* 0: forever; false on timeout or VM death */
/* Queue a whole frame (takes ownership of b->data). Events may block while the queue is full. */
void link_send(outbuf *b, bool is_event);
/* An event that must never wait: queued, or dropped (false) while the queue is over its limit. */
bool link_send_nowait(outbuf *b);
bool link_queue_full(void);  /* the queue is over its limit (the daemon reads too slowly) */
void link_send_notice(int what, const char *detail);
bool link_is_agent_thread(JNIEnv *env, jthread thread);
uint64_t link_generation(void);  /* changes on every connect */
void link_flush(jlong timeout_ms);  /* wait (bounded) until the queue is written */
void link_shutdown(void);           /* EXIT: the transport goes before exit() */

#endif
