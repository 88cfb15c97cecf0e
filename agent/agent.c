/* Agent_OnLoad / Agent_OnAttach: options, capability profiles, lifecycle (VMInit, VMDeath). */
/* POSIX (clock_gettime, strdup, sockets) also where the build sets no feature macro. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app_resume.h"
#include "base.h"
#include "dispatch.h"
#include "events.h"
#include "filters.h"
#include "invoke.h"
#include "link.h"
#include "objects.h"
#include "step.h"
#include "threads.h"
#include "unload.h"
#include "unload_report.h"
#include "vt_events.h"
#include "vthreads.h"
#include "wake.h"

/* ---- options ------------------------------------------------------------------------ */

static bool options_failed;
static char option_error[512];

static void option_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void option_fail(const char *fmt, ...) {
    if (options_failed) return;  /* report the first problem only: one line */
    options_failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(option_error, sizeof option_error, fmt, ap);
    va_end(ap);
}

static char *dup_range(const char *s, size_t n) {
    char *p = malloc(n + 1);
    if (p == NULL) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

static bool valid_link(const char *v) {
    if (strncmp(v, "unix:", 5) == 0) return v[5] == '/' && strlen(v + 5) < 108;
    const char *colon = strrchr(v, ':');
    if (colon == NULL || colon == v) return false;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    return *end == 0 && colon[1] != 0 && port > 0 && port < 65536;
}

static char *onthrow_signature(const char *name) {
    size_t n = strlen(name);
    char *sig = malloc(n + 3);
    if (sig == NULL) return NULL;
    sig[0] = 'L';
    for (size_t i = 0; i < n; i++) sig[i + 1] = name[i] == '.' ? '/' : name[i];
    sig[n + 1] = ';';
    sig[n + 2] = 0;
    return sig;
}

static void parse_options(const char *options) {
    memset(&base_g.opts, 0, sizeof base_g.opts);
    base_g.opts.profile = "full";
    const char *p = options ? options : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (n == 0) {
            option_fail("empty option");
            return;
        }
        if (eq == NULL) {
            char *name = dup_range(p, n);
            option_fail("option '%s' needs a value", name ? name : "?");
            free(name);
            return;
        }
        char *name = dup_range(p, (size_t)(eq - p));
        char *value = dup_range(eq + 1, n - (size_t)(eq - p) - 1);
        if (name == NULL || value == NULL) {
            option_fail("out of memory");
            return;
        }
        if (strcmp(name, "link") == 0) {
            if (!valid_link(value)) option_fail("malformed value for option 'link': '%s'", value);
            base_g.opts.link = value;
        } else if (strcmp(name, "secretfile") == 0) {
            if (!*value) option_fail("malformed value for option 'secretfile': ''");
            base_g.opts.secretfile = value;
        } else if (strcmp(name, "profile") == 0) {
            if (strcmp(value, "full") && strcmp(value, "nothrow") && strcmp(value, "inspect"))
                option_fail("malformed value for option 'profile': '%s'", value);
            base_g.opts.profile = value;
        } else if (strcmp(name, "suspend") == 0) {
            if (strcmp(value, "y") && strcmp(value, "n"))
                option_fail("malformed value for option 'suspend': '%s'", value);
            base_g.opts.suspend = strcmp(value, "y") == 0;
        } else if (strcmp(name, "timeout") == 0) {
            char *e;
            errno = 0;
            long ms = strtol(value, &e, 10);
            if (!*value || *e || ms < 0 || errno) option_fail("malformed value for option 'timeout': '%s'", value);
            base_g.opts.timeout_ms = ms;
        } else if (strcmp(name, "includevirtualthreads") == 0) {
            /* The reference's option: AllThreads lists virtual threads too. */
            if (strcmp(value, "y") && strcmp(value, "n"))
                option_fail("malformed value for option 'includevirtualthreads': '%s'", value);
            vt_events_include_option = strcmp(value, "y") == 0;
        } else if (strcmp(name, "log") == 0) {
            if (!*value) option_fail("malformed value for option 'log': ''");
            base_g.opts.log = value;
        } else if (strcmp(name, "onthrow") == 0) {
            /* The reference's form: a class name with dots or slashes, compared as a signature. */
            if (!*value || strpbrk(value, ";[") != NULL)
                option_fail("malformed value for option 'onthrow': '%s'", value);
            else if ((base_g.opts.onthrow = onthrow_signature(value)) == NULL)
                option_fail("out of memory");
        } else if (strcmp(name, "onuncaught") == 0) {
            if (strcmp(value, "y") && strcmp(value, "n"))
                option_fail("malformed value for option 'onuncaught': '%s'", value);
            base_g.opts.onuncaught = strcmp(value, "y") == 0;
        } else if (strcmp(name, "optional") == 0) {
            if (strcmp(value, "y") && strcmp(value, "n"))
                option_fail("malformed value for option 'optional': '%s'", value);
            base_g.opts.optional = strcmp(value, "y") == 0;
        } else if (strcmp(name, "launch") == 0) {
            /* The reference runs it when its late listener comes up; the daemon's is up from the start. */
            option_fail("option 'launch' is not the agent's: the daemon runs it (jdwpd launch --launch CMD)");
        } else {
            option_fail("unknown option '%s'", name);
        }
        free(name);
        p += n;
        if (*p == ',') p++;
    }
    if (!options_failed && base_g.opts.link == NULL) option_fail("missing required option 'link'");
    if (!options_failed && base_g.opts.secretfile == NULL) option_fail("missing required option 'secretfile'");
    /* The wake-up hook is an Exception event: only the full profile holds exception events. */
    if (!options_failed && (base_g.opts.onthrow || base_g.opts.onuncaught) && strcmp(base_g.opts.profile, "full") != 0)
        option_fail("options 'onthrow' and 'onuncaught' need profile=full (exception events)");
}

/* optional=y among the options, whatever else is wrong with them: `jdwpd ci` gives it to every JVM a
 * build starts, and one started after the run (by a build daemon that outlived it) finds no secret:
 * that JVM must run, undebugged, not fail to start. */
static bool optional_requested(const char *options) {
    const char *p = options ? options : "";
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == strlen("optional=y") && strncmp(p, "optional=y", n) == 0) return true;
        p += n;
        if (*p == ',') p++;
    }
    return false;
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static void read_secret(void) {
    struct stat st;
    const char *path = base_g.opts.secretfile;
    if (stat(path, &st) != 0) {
        option_fail("cannot read secretfile '%s': %s", path, strerror(errno));
        return;
    }
    if (st.st_mode & 077) {
        option_fail("secretfile '%s' is readable by group or others (chmod 600 it)", path);
        return;
    }
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        option_fail("cannot read secretfile '%s': %s", path, strerror(errno));
        return;
    }
    char text[2 * LINK_SECRET_SIZE + 4];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) n--;
    if (n != 2 * LINK_SECRET_SIZE) {
        option_fail("secretfile '%s' must hold %d hex characters", path, 2 * LINK_SECRET_SIZE);
        return;
    }
    for (size_t i = 0; i < LINK_SECRET_SIZE; i++) {
        int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            option_fail("secretfile '%s' must hold %d hex characters", path, 2 * LINK_SECRET_SIZE);
            return;
        }
        base_g.secret[i] = (uint8_t)(hi << 4 | lo);
    }
}

/* ---- capabilities ------------------------------------------------------------------- */

static void want_profile(jvmtiCapabilities *c, const char *profile) {
    memset(c, 0, sizeof *c);
    /* Costless everywhere (design.md "HotSpot facts"). */
    c->can_tag_objects = 1;
    c->can_get_monitor_info = 1;
    c->can_get_owned_monitor_info = 1;
    c->can_get_current_contended_monitor = 1;
    c->can_suspend = 1;
    c->can_signal_thread = 1;
    c->can_redefine_classes = 1;
    c->can_get_bytecodes = 1;
    c->can_get_constant_pool = 1;
    c->can_get_source_file_name = 1;
    c->can_get_line_numbers = 1;
    c->can_get_synthetic_attribute = 1;
    c->can_get_source_debug_extension = 1;
    c->can_maintain_original_method_order = 1;
    vthreads_want_capability(c);
    if (strcmp(profile, "inspect") == 0) return;
    /* The reference's set (libjdwp debugInit.c), minus what "nothrow" leaves out. */
    c->can_access_local_variables = 1;
    c->can_generate_single_step_events = 1;
    c->can_generate_breakpoint_events = 1;
    c->can_generate_method_entry_events = 1;
    c->can_generate_monitor_events = 1;
    c->can_generate_garbage_collection_events = 1;
    c->can_force_early_return = 1;
    c->can_generate_field_modification_events = 1;
    c->can_generate_field_access_events = 1;
    c->can_pop_frame = 1;
    c->can_redefine_any_class = 1;
    c->can_get_owned_monitor_stack_depth_info = 1;
    if (strcmp(profile, "nothrow") == 0) return;
    c->can_generate_exception_events = 1;
    c->can_generate_frame_pop_events = 1;
    c->can_generate_method_exit_events = 1;
}

static uint64_t caps_to_mask(const jvmtiCapabilities *c) {
    uint64_t m = 0;
#define BIT(flag, bit) if (c->flag) m |= (uint64_t)1 << (bit)
    BIT(can_generate_field_modification_events, CAPBIT_WATCH_FIELD_MODIFICATION);
    BIT(can_generate_field_access_events, CAPBIT_WATCH_FIELD_ACCESS);
    BIT(can_get_bytecodes, CAPBIT_GET_BYTECODES);
    BIT(can_get_synthetic_attribute, CAPBIT_GET_SYNTHETIC_ATTRIBUTE);
    BIT(can_get_owned_monitor_info, CAPBIT_GET_OWNED_MONITOR_INFO);
    BIT(can_get_current_contended_monitor, CAPBIT_GET_CURRENT_CONTENDED_MONITOR);
    BIT(can_get_monitor_info, CAPBIT_GET_MONITOR_INFO);
    BIT(can_redefine_classes, CAPBIT_REDEFINE_CLASSES);
    BIT(can_pop_frame, CAPBIT_POP_FRAME);
    BIT(can_force_early_return, CAPBIT_FORCE_EARLY_RETURN);
    BIT(can_get_source_debug_extension, CAPBIT_GET_SOURCE_DEBUG_EXTENSION);
    BIT(can_generate_breakpoint_events, CAPBIT_BREAKPOINTS);
    BIT(can_generate_single_step_events, CAPBIT_SINGLE_STEP);
    BIT(can_access_local_variables, CAPBIT_ACCESS_LOCAL_VARIABLES);
    BIT(can_generate_exception_events, CAPBIT_EXCEPTION_EVENTS);
    BIT(can_generate_frame_pop_events, CAPBIT_FRAME_POP_EVENTS);
    BIT(can_generate_method_entry_events, CAPBIT_METHOD_ENTRY_EVENTS);
    BIT(can_generate_method_exit_events, CAPBIT_METHOD_EXIT_EVENTS);
    BIT(can_generate_monitor_events, CAPBIT_MONITOR_EVENTS);
    BIT(can_get_constant_pool, CAPBIT_GET_CONSTANT_POOL);
    BIT(can_get_owned_monitor_stack_depth_info, CAPBIT_GET_OWNED_MONITOR_STACK_DEPTH_INFO);
    BIT(can_tag_objects, CAPBIT_TAG_OBJECTS);
    BIT(can_suspend, CAPBIT_SUSPEND);
    BIT(can_signal_thread, CAPBIT_SIGNAL_THREAD);
    BIT(can_get_line_numbers, CAPBIT_LINE_NUMBERS);
    BIT(can_get_source_file_name, CAPBIT_SOURCE_FILE_NAME);
    BIT(can_maintain_original_method_order, CAPBIT_MAINTAIN_ORIGINAL_METHOD_ORDER);
    BIT(can_redefine_any_class, CAPBIT_REDEFINE_ANY_CLASS);
#undef BIT
    if (vthreads_supported()) m |= (uint64_t)1 << CAPBIT_SUPPORT_VIRTUAL_THREADS;
    return m;
}

static int acquire_capabilities(void) {
    jvmtiCapabilities want, potential;
    want_profile(&want, base_g.opts.profile);
    if ((*base_g.jvmti)->GetPotentialCapabilities(base_g.jvmti, &potential) != JVMTI_ERROR_NONE) return -1;
    /* Intersect: a live attach (or another agent holding a solo capability) may offer less. */
    unsigned char *w = (unsigned char *)&want;
    const unsigned char *pp = (const unsigned char *)&potential;
    for (size_t i = 0; i < sizeof want; i++) w[i] &= pp[i];
    jvmtiError err = (*base_g.jvmti)->AddCapabilities(base_g.jvmti, &want);
    if (err != JVMTI_ERROR_NONE) return (int)err;
    if ((*base_g.jvmti)->GetCapabilities(base_g.jvmti, &base_g.caps) != JVMTI_ERROR_NONE) return -1;
    vthreads_capabilities_held(&base_g.caps);
    base_g.caps_mask = caps_to_mask(&base_g.caps);
    return 0;
}

/* ---- the link's hooks ---------------------------------------------------------------- */

/* Link loss (the reader thread, after link.c closed the socket and emptied the queue, so nothing of
 * the old link goes out after this).  The only place that undoes what a daemon did, in this order:
 *  1. the start-suspended main thread runs too;
 *  2. every request goes (breakpoints, watches, steps, event modes, the extension's requests)
 *     before any thread is resumed, so that no resumed thread stops at a request of the daemon
 *     that left;
 *  3. under the agent lock, where events check the link before they suspend (filters_hits_send_raw):
 *     invokes not started are dropped (nobody awaits them), then every count goes to 0, every
 *     thread is resumed and a suspend-all ends;
 *  4. pins go (DisableCollection's and the suspend-all's), now that no thread is held. */
static void reset_after_link_loss(JNIEnv *env) {
    base_g.hello_flags &= ~HELLO_SUSPEND_ON_START;
    filters_clear_all(env);
    base_lock_enter();
    threads_each(env, invoke_drop_pending);
    threads_reset(env);
    base_lock_exit();
    objects_unpin_all(env);
}

static const link_handlers hooks = {
    .request = dispatch_request,
    .lost = reset_after_link_loss,
    .idle_wanted = unload_tracking_active,
    .idle = unload_report_pending,
};

/* The link's threads and what follows them: virtual-thread tracking (includevirtualthreads=y) and
 * the hold on Thread.resume (app_resume.c).  VMInit, OnAttach, or a dormant agent's wake-up. */
static int start_agent(JNIEnv *env) {
    if (link_start(env, &hooks) != 0) return -1;
    vt_events_track_start();
    app_resume_arm(env);
    return 0;
}

/* ---- lifecycle ---------------------------------------------------------------------- */

static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (local == NULL) {
        (*env)->ExceptionClear(env);
        return NULL;
    }
    jclass g = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    return g;
}

static bool cache_classes(JNIEnv *env) {
    base_g.cls_string = global_class(env, "java/lang/String");
    base_g.cls_thread = global_class(env, "java/lang/Thread");
    base_g.cls_thread_group = global_class(env, "java/lang/ThreadGroup");
    base_g.cls_class_loader = global_class(env, "java/lang/ClassLoader");
    base_g.cls_class = global_class(env, "java/lang/Class");
    base_g.cls_module = global_class(env, "java/lang/Module");
    base_g.cls_throwable = global_class(env, "java/lang/Throwable");
    return base_g.cls_module && base_g.cls_throwable && base_g.cls_string && base_g.cls_thread && base_g.cls_thread_group &&
           base_g.cls_class_loader && base_g.cls_class;
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *env, jthread thread) {
    (void)jvmti;
    if (!cache_classes(env)) {
        fprintf(stderr, "jdwpd agent: cannot resolve core classes; the agent stays inactive\n");
        return;
    }
    base_g.vm_started = true;
    base_g.hello_flags |= HELLO_VM_STARTED;
    if (base_g.dormant) return;  /* onthrow=/onuncaught=: the exception starts the rest */
    if (link_start(env, &hooks) != 0) {
        fprintf(stderr, "jdwpd agent: cannot start the agent threads; the agent stays inactive\n");
        return;
    }
    vt_events_track_start();
    if (base_g.opts.suspend && !link_wait_connected(base_g.opts.timeout_ms)) {
        base_log("suspend=y: no daemon within %ld ms, running", base_g.opts.timeout_ms);
        base_g.hello_flags &= ~HELLO_SUSPEND_ON_START;
    } else {
        events_vm_start(env, thread);
    }
    /* After the start event, which it would delay: no program code has run yet (with suspend=y, main
     * was parked in it until the debugger resumed). */
    app_resume_arm(env);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *env) {
    (void)jvmti;
    link_finish_handshake(1000);
    events_vm_death(env);
    link_send_notice(LINK_NOTICE_VM_DEATH, "");
    link_vm_death(env);
}

static int common_init(JavaVM *vm, const char *options, bool live) {
    static bool loaded;
    if (loaded) {  /* a second -agentpath or attach of this library: one agent per VM */
        option_fail("already loaded in this VM");
        return -1;
    }
    loaded = true;
    base_g.jvm = vm;
    parse_options(options);
    if (!options_failed) read_secret();
    if (options_failed) return -1;
    if (base_g.opts.log) {
        if (!base_log_open(base_g.opts.log)) {
            option_fail("cannot open log '%s': %s", base_g.opts.log, strerror(errno));
            return -1;
        }
    }
    if ((*vm)->GetEnv(vm, (void **)&base_g.jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        option_fail("JVMTI 1.2 is not available");
        return -1;
    }
    if (live) base_g.hello_flags |= HELLO_LIVE_ATTACH;
    vthreads_runtime_init(base_g.jvmti);
    bool dormant = base_g.opts.onthrow != NULL || base_g.opts.onuncaught;
    if (dormant && live) {
        option_fail("options 'onthrow' and 'onuncaught' apply from a JVM's start (-agentpath), not to a live attach");
        return -1;
    }
    if (base_g.opts.suspend && !live && !dormant) base_g.hello_flags |= HELLO_SUSPEND_ON_START;
    int err = acquire_capabilities();
    if (err != 0) {
        option_fail("cannot acquire the '%s' capabilities (JVMTI error %d)", base_g.opts.profile, err);
        return -1;
    }
    if (!base_lock_create()) {
        option_fail("cannot create a raw monitor");
        return -1;
    }
    objects_init();
    filters_init(step_start, step_stop);
    unload_init();
    threads_init();
    vt_callbacks cbs;  /* JDK 21's layout: 17's callbacks and the virtual-thread ones */
    memset(&cbs, 0, sizeof cbs);
    cbs.cb.VMInit = on_vm_init;
    cbs.cb.VMDeath = on_vm_death;
    events_init(&cbs.cb);
    vt_events_init(&cbs);
    if ((*base_g.jvmti)->SetEventCallbacks(base_g.jvmti, &cbs.cb, vthreads_callbacks_size()) != JVMTI_ERROR_NONE) {
        option_fail("cannot set event callbacks");
        return -1;
    }
    if ((*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL)
        != JVMTI_ERROR_NONE) {
        option_fail("cannot enable VMDeath");
        return -1;
    }
    if (dormant) {
        if (!base_g.caps.can_generate_exception_events ||
            (*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, NULL)
                != JVMTI_ERROR_NONE) {
            option_fail("cannot enable Exception events for 'onthrow'/'onuncaught'");
            return -1;
        }
        wake_arm(start_agent);
        base_g.dormant = true;
    }
    base_log("agent loaded: link=%s profile=%s suspend=%d live=%d caps=%llx", base_g.opts.link, base_g.opts.profile,
              base_g.opts.suspend, live, (unsigned long long)base_g.caps_mask);
    return 0;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (common_init(vm, options, false) != 0) {
        if (optional_requested(options) && base_g.jvmti == NULL) {
            /* nothing of ours is installed yet (no capability, no callback): the VM runs as if we were not there */
            fprintf(stderr, "jdwpd agent: %s; optional=y: the JVM runs without the agent\n", option_error);
            fflush(stderr);
            return JNI_OK;
        }
        /* One line, then a clean exit status: never start a VM the user thinks is debuggable. */
        fprintf(stderr, "jdwpd agent: %s\n", option_error);
        fflush(stderr);
        exit(2);
    }
    if ((*base_g.jvmti)->SetEventNotificationMode(base_g.jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL)
        != JVMTI_ERROR_NONE) {
        fprintf(stderr, "jdwpd agent: cannot enable VMInit\n");
        exit(2);
    }
    return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)reserved;
    if (common_init(vm, options, true) != 0) {
        /* A running VM is never killed for a bad attach. */
        fprintf(stderr, "jdwpd agent: %s\n", option_error);
        return JNI_ERR;
    }
    JNIEnv *env = base_jni_env();
    if (env == NULL || !cache_classes(env)) return JNI_ERR;
    base_g.vm_started = true;
    base_g.hello_flags |= HELLO_VM_STARTED;
    if (start_agent(env) != 0) return JNI_ERR;
    return JNI_OK;
}
