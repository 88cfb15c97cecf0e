/* The agent's base: its globals, its one big lock, logging, and the smallest JVMTI helpers.  Every
 * other module stands on this one; it stands on nothing of the agent but the generated numbers. */
#ifndef JDWPD_BASE_H
#define JDWPD_BASE_H

#include <jni.h>
#include <jvmti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "link_protocol.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* An executor's JVMTI call whose error is the request's status. */
#define CHECK(call) do { jvmtiError err_ = (call); if (err_ != JVMTI_ERROR_NONE) return (int)err_; } while (0)

typedef struct agent_options {
    char *link;        /* "unix:/path" or "127.0.0.1:PORT" */
    char *secretfile;
    char *profile;     /* full | nothrow | inspect */
    bool suspend;
    long timeout_ms;   /* 0: wait forever for a daemon when suspend=y */
    char *log;
    char *onthrow;     /* onthrow=: the exception class's signature ("Ljava/lang/Foo;"), or NULL */
    bool onuncaught;   /* onuncaught=y */
    bool optional;     /* optional=y: a VM whose agent cannot start (options, secret) runs without it */
} agent_options;

typedef struct agent_globals {
    JavaVM *jvm;
    jvmtiEnv *jvmti;
    agent_options opts;
    uint8_t secret[LINK_SECRET_SIZE];
    jvmtiCapabilities caps;  /* what we hold */
    uint64_t caps_mask;      /* the same as CapBit bits */
    int32_t hello_flags;
    volatile bool vm_started;
    volatile bool vm_dead;
    uint32_t requests_run;  /* the id of the last link request run (dispatch.c; atomics: stop_reads.c) */
    volatile bool dormant;  /* onthrow=/onuncaught=: no link, no threads until the exception */
    /* Cached classes for object kinds; global refs made at VMInit. */
    jclass cls_string, cls_thread, cls_thread_group, cls_class_loader, cls_class;
    jclass cls_module, cls_throwable;  /* type checks before JVMTI/JNI take an object as one */
    jrawMonitorID lock;  /* threads, filters, breakpoints, parking: the one big agent lock */
} agent_globals;

extern agent_globals base_g;

/* log=PATH: false if it cannot be opened (errno says why).  Without it base_log writes nothing. */
bool base_log_open(const char *path);
void base_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The agent lock (a raw monitor; re-entrant).  Order: a thread holding it may take the link's lock
 * (link.c), never the reverse (link.c takes no agent lock, and calls its handlers without its own). */
bool base_lock_create(void);
void base_lock_enter(void);
void base_lock_exit(void);
jvmtiError base_lock_wait(jlong ms);  /* JVMTI_ERROR_INTERRUPT: the thread was interrupted */
void base_lock_notify_all(void);

/* JNI env of the current (attached) thread, or NULL. */
JNIEnv *base_jni_env(void);

/* CLOCK_MONOTONIC in ns (budgets, capture deadlines). */
int64_t base_now_ns(void);

/* JVMTI Deallocate of what JVMTI allocated; NULL is fine. */
void base_jvmti_free(void *p);

/* True when the system property `name` is "false" (-Dname=false: a switch the tests and bench use). */
bool base_property_is_false(const char *name);

#endif
