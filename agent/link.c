/* The agent link: connect to the daemon, authenticate, read requests, write replies and events.
 *
 * Two JVMTI agent threads: the reader (connects, handshakes, reads and executes requests in arrival
 * order) and the writer (drains the outbound queue).  A thread with a frame to send while nothing is
 * queued and nobody writes sends it itself, without waiting (link_send); the writer takes what does
 * not fit at once and what is queued behind a write in progress.  Their waits are raw-monitor waits so that at VM
 * exit neither sits in a blocking native call (HotSpot waits ~300 ms for such threads); the VMDeath
 * callback shuts the socket down, which ends the reader's recv(). */
/* POSIX (clock_gettime, strdup, sockets) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "buf.h"
#include "link.h"
#include "sha256.h"

#define RETRY_MS 200
#define QUEUE_LIMIT (32u * 1024 * 1024)  /* events wait beyond this many queued bytes */
/* At VM death the queue drains for as long as the daemon takes bytes; this long without a byte
 * taken means it is stuck (stopped, or not reading), and the VM exits without the rest. */
#define DEATH_STALL_MS 3000

typedef struct out_frame {
    struct out_frame *next;
    uint8_t *data;
    size_t len;
} out_frame;

static jrawMonitorID link_lock;      /* socket state and the outbound queue */
static int sock = -1;
static volatile bool authed;
static uint64_t generation;
static out_frame *q_head, *q_tail;
static size_t q_bytes;
static bool writer_busy;            /* some thread is writing to the socket (the writer or a direct send) */
static jthread reader_thread, writer_thread;
static link_handlers handlers;      /* the modules above the link, set once at link_start */
static int threads_out;             /* agent threads that have finished at VM death */
static bool events_closed;          /* VMDeath has been reported: no event may follow it */
/* Bytes the daemon has taken off the socket, counted by whoever writes (one thread at a time,
 * under writer_busy): the VM-death drain measures the daemon's progress by it. */
static volatile uint64_t bytes_out;

static void ll_enter(void) { (*base_g.jvmti)->RawMonitorEnter(base_g.jvmti, link_lock); }
static void ll_exit(void) { (*base_g.jvmti)->RawMonitorExit(base_g.jvmti, link_lock); }
static jvmtiError ll_wait(jlong ms) { return (*base_g.jvmti)->RawMonitorWait(base_g.jvmti, link_lock, ms); }
static void ll_notify(void) { (*base_g.jvmti)->RawMonitorNotifyAll(base_g.jvmti, link_lock); }

bool link_connected(void) { return authed; }
uint64_t link_generation(void) { return generation; }

bool link_wait_connected(jlong timeout_ms) {
    jlong waited = 0;
    ll_enter();
    while (!authed && !base_g.vm_dead && (timeout_ms == 0 || waited < timeout_ms)) {
        ll_wait(50);
        waited += 50;
    }
    bool ok = authed;
    ll_exit();
    return ok;
}

bool link_is_agent_thread(JNIEnv *env, jthread thread) {
    return (reader_thread && (*env)->IsSameObject(env, thread, reader_thread)) ||
           (writer_thread && (*env)->IsSameObject(env, thread, writer_thread));
}

static void free_queue_locked(void) {
    while (q_head) {
        out_frame *f = q_head;
        q_head = f->next;
        free(f->data);
        free(f);
    }
    q_tail = NULL;
    q_bytes = 0;
}

/* Writes what fits now without waiting: bytes sent, or -1 if the socket failed. */
static ssize_t send_nowait(int fd, const uint8_t *p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = send(fd, p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (k <= 0) return -1;
        done += (size_t)k;
        bytes_out += (uint64_t)k;
    }
    return (ssize_t)done;
}

static void enqueue_locked(out_frame *f, bool first) {
    if (first) {
        f->next = q_head;
        q_head = f;
        if (q_tail == NULL) q_tail = f;
    } else {
        if (q_tail) q_tail->next = f; else q_head = f;
        q_tail = f;
    }
    q_bytes += f->len;
}

/* With nothing queued and nobody writing, the calling thread (the reader with a reply, an
 * application thread with its event) writes its frame itself: no writer wake-up, no queue
 * node.  The write never waits: what does not fit goes to the head of the queue, for the
 * writer thread, so a slow or dead daemon never holds up an event thread. */
static bool send_directly(outbuf *b) {
    if (q_head != NULL || writer_busy || sock < 0) return false;
    int fd = sock;
    writer_busy = true;
    ll_exit();
    ssize_t sent = send_nowait(fd, b->data, b->len);
    ll_enter();
    writer_busy = false;
    ll_notify();  /* the writer, and whoever waits for writes to end (disconnect, flush) */
    if (sent < 0) {
        if (fd == sock && sock >= 0) shutdown(sock, SHUT_RDWR);  /* the reader sees EOF and resets */
        buf_out_free(b);
        return true;
    }
    if ((size_t)sent == b->len || !authed) {
        buf_out_free(b);
        return true;
    }
    out_frame *f = malloc(sizeof *f);
    if (f == NULL) {  /* a frame cut short would garble the stream: end the link instead */
        if (fd == sock && sock >= 0) shutdown(sock, SHUT_RDWR);
        buf_out_free(b);
        return true;
    }
    memmove(b->data, b->data + sent, b->len - (size_t)sent);
    f->data = b->data;
    f->len = b->len - (size_t)sent;
    b->data = NULL;
    b->len = b->cap = 0;
    enqueue_locked(f, true);  /* frames queued meanwhile come after the rest of this one */
    ll_notify();
    return true;
}

bool link_queue_full(void) {
    ll_enter();
    bool full = authed && q_bytes > QUEUE_LIMIT;
    ll_exit();
    return full;
}

/* may_wait false: a full queue drops the frame (false) instead of waiting for room. */
static bool send_frame(outbuf *b, bool is_event, bool may_wait) {
    if (b->oom) {
        buf_out_free(b);
        return false;
    }
    ll_enter();
    if (!may_wait && q_bytes > QUEUE_LIMIT) {
        ll_exit();
        buf_out_free(b);
        return false;
    }
    /* Events wait for room so a slow daemon slows the events' threads, never grows memory unbounded. */
    bool interrupted = false;  /* the application's interrupt, cleared by the wait: raised again */
    while (is_event && authed && q_bytes > QUEUE_LIMIT && !base_g.vm_dead && !events_closed) {
        if (ll_wait(10) == JVMTI_ERROR_INTERRUPT) interrupted = true;
    }
    jthread self = NULL;
    if (interrupted && base_g.caps.can_signal_thread && (*base_g.jvmti)->GetCurrentThread(base_g.jvmti, &self) == JVMTI_ERROR_NONE)
        (*base_g.jvmti)->InterruptThread(base_g.jvmti, self);
    if (!authed || (is_event && events_closed)) {
        ll_exit();
        buf_out_free(b);
        return true;
    }
    if (send_directly(b)) {
        ll_exit();
        return true;
    }
    out_frame *f = malloc(sizeof *f);
    if (f == NULL) {
        ll_exit();
        buf_out_free(b);
        return true;
    }
    f->next = NULL;
    f->data = b->data;
    f->len = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    enqueue_locked(f, false);
    ll_notify();
    ll_exit();
    return true;
}

void link_send(outbuf *b, bool is_event) { send_frame(b, is_event, true); }

bool link_send_nowait(outbuf *b) { return send_frame(b, true, false); }

void link_send_notice(int what, const char *detail) {
    outbuf b;
    buf_out_init(&b, 64);
    buf_out_frame_begin(&b);
    buf_out_u32(&b, (uint32_t)what);
    buf_out_str(&b, detail);
    buf_out_frame_end(&b, 0, LK_NOTICE, 0);
    link_send(&b, true);
}

static bool send_all(int fd, const uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
        bytes_out += (uint64_t)k;
    }
    return true;
}

static bool recv_all(int fd, uint8_t *p, size_t n) {
    while (n > 0) {
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

/* ---- writer -------------------------------------------------------------------------- */

static void JNICALL writer_main(jvmtiEnv *jvmti, JNIEnv *env, void *arg) {
    (void)jvmti; (void)arg;
    ll_enter();
    for (;;) {
        while (!base_g.vm_dead && (q_head == NULL || !authed || writer_busy)) {
            /* Class unloads are queued by GC (unload.c) without waking anyone: the idle handler
             * looks every 100 ms. */
            if (handlers.idle_wanted() && authed && !writer_busy) {
                ll_exit();
                handlers.idle(env);
                ll_enter();
                if (q_head != NULL && !writer_busy) break;
                ll_wait(100);
            } else {
                ll_wait(0);
            }
        }
        while (writer_busy) ll_wait(10);  /* at VM death: a direct write in progress ends first (it never waits) */
        if (q_head == NULL || !authed) break;  /* VM death with nothing left to send */
        out_frame *f = q_head;
        q_head = f->next;
        if (q_head == NULL) q_tail = NULL;
        q_bytes -= f->len;
        int fd = sock;
        writer_busy = true;
        ll_notify();
        ll_exit();
        bool ok = send_all(fd, f->data, f->len);
        free(f->data);
        free(f);
        ll_enter();
        writer_busy = false;
        ll_notify();
        if (!ok && fd == sock && sock >= 0) shutdown(sock, SHUT_RDWR);  /* the reader sees EOF and resets */
    }
    threads_out++;
    ll_notify();
    ll_exit();
}

/* ---- reader: connect, handshake, requests ------------------------------------------------ */

static int connect_daemon(void) {
    const char *addr = base_g.opts.link;
    int fd;
    if (strncmp(addr, "unix:", 5) == 0) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        strncpy(sa.sun_path, addr + 5, sizeof sa.sun_path - 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return -1;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            close(fd);
            return -1;
        }
    } else {
        char host[128];
        const char *colon = strrchr(addr, ':');
        size_t n = (size_t)(colon - addr);
        if (n >= sizeof host) return -1;
        memcpy(host, addr, n);
        host[n] = 0;
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = htons((uint16_t)atoi(colon + 1));
        if (inet_pton(AF_INET, strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, &sa.sin_addr) != 1) return -1;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return -1;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
            close(fd);
            return -1;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static bool random_bytes(uint8_t *p, size_t n) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool ok = read(fd, p, n) == (ssize_t)n;
    close(fd);
    return ok;
}

/* Reads one frame into a malloc'd buffer (body only); false on EOF/error/oversize. */
static bool read_frame(int fd, uint32_t *id, uint16_t *kind, uint16_t *status, uint8_t **body, size_t *len) {
    uint8_t h[LINK_HEADER_SIZE];
    if (!recv_all(fd, h, sizeof h)) return false;
    uint32_t length = buf_be32(h);
    if (length < LINK_HEADER_SIZE || length > LINK_MAX_FRAME) return false;
    *id = buf_be32(h + 4);
    *kind = buf_be16(h + 8);
    *status = buf_be16(h + 10);
    *len = length - LINK_HEADER_SIZE;
    *body = malloc(*len ? *len : 1);
    if (*body == NULL) return false;
    if (!recv_all(fd, *body, *len)) {
        free(*body);
        return false;
    }
    return true;
}

static bool handshake(int fd) {
    uint8_t nonce[LINK_NONCE_SIZE];
    if (!random_bytes(nonce, sizeof nonce)) return false;
    outbuf b;
    buf_out_init(&b, 128);
    buf_out_frame_begin(&b);
    buf_out_blob(&b, LINK_MAGIC, LINK_MAGIC_SIZE);
    buf_out_u32(&b, LINK_VERSION);
    buf_out_u64(&b, (uint64_t)getpid());
    buf_out_blob(&b, nonce, sizeof nonce);
    buf_out_u32(&b, (uint32_t)base_g.hello_flags);
    buf_out_u64(&b, base_g.caps_mask);
    buf_out_str(&b, base_g.opts.profile);
    buf_out_frame_end(&b, 0, LK_HELLO, 0);
    bool ok = !b.oom && send_all(fd, b.data, b.len);
    buf_out_free(&b);
    if (!ok) return false;

    uint32_t id;
    uint16_t kind, status;
    uint8_t *body;
    size_t len;
    if (!read_frame(fd, &id, &kind, &status, &body, &len)) return false;
    inbuf in = {body, len, 0, false};
    uint32_t dn_len, proof_len;
    const uint8_t *dnonce = buf_in_blob(&in, &dn_len);
    const uint8_t *claimed = buf_in_blob(&in, &proof_len);
    uint8_t msg[64], expect[32];
    ok = kind == LK_CHALLENGE && buf_in_done(&in) && dn_len == LINK_NONCE_SIZE && proof_len == LINK_PROOF_SIZE;
    if (ok) {
        size_t label = strlen(LINK_DAEMON_LABEL);
        memcpy(msg, LINK_DAEMON_LABEL, label);
        memcpy(msg + label, nonce, sizeof nonce);
        sha256_hmac(base_g.secret, sizeof base_g.secret, msg, label + sizeof nonce, expect);
        ok = sha256_ct_equal(expect, claimed, 32);
    }
    uint8_t daemon_nonce[LINK_NONCE_SIZE];
    if (ok) memcpy(daemon_nonce, dnonce, sizeof daemon_nonce);
    free(body);
    if (!ok) {
        base_log("handshake: daemon failed to prove the secret");
        return false;
    }
    size_t label = strlen(LINK_AGENT_LABEL);
    memcpy(msg, LINK_AGENT_LABEL, label);
    memcpy(msg + label, daemon_nonce, sizeof daemon_nonce);
    sha256_hmac(base_g.secret, sizeof base_g.secret, msg, label + sizeof daemon_nonce, expect);
    buf_out_init(&b, 64);
    buf_out_frame_begin(&b);
    buf_out_blob(&b, expect, 32);
    buf_out_frame_end(&b, 0, LK_AUTH, 0);
    ok = !b.oom && send_all(fd, b.data, b.len);
    buf_out_free(&b);
    if (!ok) return false;
    if (!read_frame(fd, &id, &kind, &status, &body, &len)) return false;
    free(body);
    return kind == LK_WELCOME;
}

static void disconnect(JNIEnv *env) {
    ll_enter();
    bool was = authed;
    authed = false;
    free_queue_locked();
    /* Let the writer finish a send already started before the socket goes. */
    while (writer_busy) ll_wait(10);
    if (sock >= 0) {
        close(sock);
        sock = -1;
    }
    ll_notify();
    ll_exit();
    if (was && !base_g.vm_dead) {
        base_log("link lost: resetting");
        handlers.lost(env);
    }
}

static void JNICALL reader_main(jvmtiEnv *jvmti, JNIEnv *env, void *arg) {
    (void)jvmti; (void)arg;
    while (!base_g.vm_dead) {
        int fd = connect_daemon();
        if (fd >= 0) {
            ll_enter();
            sock = fd;
            ll_exit();
            if (!base_g.vm_dead && handshake(fd)) {
                ll_enter();
                generation++;
                authed = true;
                ll_notify();
                ll_exit();
                base_log("link authenticated");
                uint32_t id;
                uint16_t kind, status;
                uint8_t *body;
                size_t len;
                while (!base_g.vm_dead && read_frame(fd, &id, &kind, &status, &body, &len)) {
                    handlers.request(env, id, kind, body, len);
                    free(body);
                    (*env)->ExceptionClear(env);
                }
            }
            disconnect(env);
        }
        if (base_g.vm_dead) break;
        ll_enter();
        if (!base_g.vm_dead) ll_wait(RETRY_MS);
        ll_exit();
    }
    ll_enter();
    threads_out++;
    ll_notify();
    ll_exit();
}

static jthread new_thread(JNIEnv *env, const char *name) {
    jmethodID ctor = (*env)->GetMethodID(env, base_g.cls_thread, "<init>", "(Ljava/lang/String;)V");
    if (ctor == NULL) return NULL;
    jstring jname = (*env)->NewStringUTF(env, name);
    if (jname == NULL) return NULL;
    jobject t = (*env)->NewObject(env, base_g.cls_thread, ctor, jname);
    (*env)->DeleteLocalRef(env, jname);
    if (t == NULL) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jthread g = (*env)->NewGlobalRef(env, t);
    (*env)->DeleteLocalRef(env, t);
    return g;
}

int link_start(JNIEnv *env, const link_handlers *h) {
    handlers = *h;
    if ((*base_g.jvmti)->CreateRawMonitor(base_g.jvmti, "jdwpd link", &link_lock) != JVMTI_ERROR_NONE) return -1;
    reader_thread = new_thread(env, "jdwpd agent reader");
    writer_thread = new_thread(env, "jdwpd agent writer");
    if (reader_thread == NULL || writer_thread == NULL) return -1;
    if ((*base_g.jvmti)->RunAgentThread(base_g.jvmti, writer_thread, writer_main, NULL, JVMTI_THREAD_MAX_PRIORITY)
        != JVMTI_ERROR_NONE)
        return -1;
    if ((*base_g.jvmti)->RunAgentThread(base_g.jvmti, reader_thread, reader_main, NULL, JVMTI_THREAD_MAX_PRIORITY)
        != JVMTI_ERROR_NONE)
        return -1;
    return 0;
}

static jlong monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (jlong)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A short program can end while the daemon is still proving the secret: let the handshake finish (or
 * fail) first, so the daemon adopts a VM that then dies cleanly instead of a link cut in the middle. */
void link_finish_handshake(jlong timeout_ms) {
    if (link_lock == NULL) return;
    ll_enter();
    for (jlong waited = 0; waited < timeout_ms && sock >= 0 && !authed; waited += 10) ll_wait(10);
    ll_exit();
}

void link_vm_death(JNIEnv *env) {
    (void)env;
    if (link_lock == NULL) return;
    ll_enter();
    /* The VM_DEATH notice is queued: what other threads report from now on would follow it. */
    events_closed = true;
    /* Every event the VM generated is owed to the debuggers: drain the queue for as long as the
     * daemon keeps taking bytes, and give up only when it takes none for DEATH_STALL_MS (stopped,
     * or not reading) or the link goes (a dead daemon: the send fails and the reader resets). */
    uint64_t seen = bytes_out;
    jlong last_progress = monotonic_ms();
    while (authed && (q_head != NULL || writer_busy)) {
        ll_wait(10);
        jlong now = monotonic_ms();
        if (bytes_out != seen) {
            seen = bytes_out;
            last_progress = now;
        } else if (now - last_progress >= DEATH_STALL_MS) {
            base_log("VM death: the daemon took nothing for %d ms; %zu bytes not sent", DEATH_STALL_MS, q_bytes);
            break;
        }
    }
    base_g.vm_dead = true;
    /* Also wakes a writer blocked in send() to a daemon that stopped reading. */
    if (sock >= 0) shutdown(sock, SHUT_RDWR);
    ll_notify();
    /* Wait until both threads are out of native code, so the VM's exit does not wait for them. */
    for (int i = 0; i < 100 && threads_out < 2; i++) ll_wait(2);
    ll_exit();
}

void link_flush(jlong timeout_ms) {
    ll_enter();
    for (jlong waited = 0; waited < timeout_ms && authed && (q_head != NULL || writer_busy); waited += 10)
        ll_wait(10);
    ll_exit();
}

/* EXIT: like the reference, the transport goes before exit(). */
void link_shutdown(void) {
    ll_enter();
    if (sock >= 0) shutdown(sock, SHUT_RDWR);
    ll_exit();
}
