/* The object table: sequence IDs from 1, JVMTI tag == ID (object -> ID in O(1)), ID -> weak global
 * reference in a hash table; pins are counted strong references.  Also the sets of method and field
 * IDs handed out: a jmethodID/jfieldID the agent never produced must not reach JNI/JVMTI, where a
 * bogus one can crash HotSpot. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "objects.h"
#include "unload.h"

typedef struct entry {
    struct entry *next;
    uint64_t key;
    jweak weak;        /* objects; declaring class (methods, fields) */
    jobject strong;    /* pins (objects) */
    int pins;
    bool is_static;
    bool by_all;       /* strong because every thread is suspended (see objects_pin_all) */
    bool released;     /* disposed by every debugger, kept for its id (keeps_its_id) */
} entry;

typedef struct table {
    entry **buckets;
    size_t nbuckets, count;
} table;

static jrawMonitorID obj_lock;
static table objects, methods, fields;
static uint64_t next_id = 1;
static uint64_t pin_total;
static uint64_t released_kept;  /* entries kept after their release */
static uint64_t sweep_at = 1024;  /* twice the survivors of the last sweep, at least 1024: amortized */
static int pin_all_depth;

static void o_enter(void) { (*base_g.jvmti)->RawMonitorEnter(base_g.jvmti, obj_lock); }
static void o_exit(void) { (*base_g.jvmti)->RawMonitorExit(base_g.jvmti, obj_lock); }

static size_t hash64(uint64_t k, size_t n) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)(k & (n - 1));
}

static entry *t_find(table *t, uint64_t key) {
    if (t->nbuckets == 0) return NULL;
    for (entry *e = t->buckets[hash64(key, t->nbuckets)]; e; e = e->next)
        if (e->key == key) return e;
    return NULL;
}

static void t_grow(table *t) {
    size_t n = t->nbuckets ? t->nbuckets * 2 : 1024;
    entry **b = calloc(n, sizeof *b);
    if (b == NULL) return;
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry *e = t->buckets[i];
        while (e) {
            entry *next = e->next;
            size_t h = hash64(e->key, n);
            e->next = b[h];
            b[h] = e;
            e = next;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->nbuckets = n;
}

static entry *t_add(table *t, uint64_t key) {
    if (t->count >= t->nbuckets) t_grow(t);
    if (t->nbuckets == 0) return NULL;
    entry *e = calloc(1, sizeof *e);
    if (e == NULL) return NULL;
    e->key = key;
    size_t h = hash64(key, t->nbuckets);
    e->next = t->buckets[h];
    t->buckets[h] = e;
    t->count++;
    return e;
}

static entry *t_remove(table *t, uint64_t key) {
    if (t->nbuckets == 0) return NULL;
    entry **pp = &t->buckets[hash64(key, t->nbuckets)];
    for (; *pp; pp = &(*pp)->next) {
        if ((*pp)->key == key) {
            entry *e = *pp;
            *pp = e->next;
            t->count--;
            return e;
        }
    }
    return NULL;
}

void objects_init(void) {
    (*base_g.jvmti)->CreateRawMonitor(base_g.jvmti, "jdwpd objects", &obj_lock);
}

uint64_t objects_id(JNIEnv *env, jobject obj) {
    if (obj == NULL) return 0;
    jlong tag = 0;
    o_enter();
    entry *known = NULL;
    if ((*base_g.jvmti)->GetTag(base_g.jvmti, obj, &tag) == JVMTI_ERROR_NONE && tag > 0 &&
        (known = t_find(&objects, (uint64_t)tag)) != NULL) {
        known->released = false;  /* sent again: held again */
        o_exit();
        return (uint64_t)tag;
    }
    uint64_t id = 0;
    jweak weak = (*env)->NewWeakGlobalRef(env, obj);
    if (weak != NULL) {
        entry *e = t_add(&objects, next_id);
        if (e != NULL && (*base_g.jvmti)->SetTag(base_g.jvmti, obj, (jlong)next_id) == JVMTI_ERROR_NONE) {
            e->weak = weak;
            if (pin_all_depth > 0) {
                e->strong = (*env)->NewGlobalRef(env, obj);
                e->by_all = true;
            }
            id = next_id++;
        } else {
            if (e) free(t_remove(&objects, next_id));
            (*env)->DeleteWeakGlobalRef(env, weak);
        }
    }
    o_exit();
    /* A class's id is sent: its unload must reach the daemon, which caches facts under the id. */
    if (id != 0 && (*env)->IsInstanceOf(env, obj, base_g.cls_class)) unload_watch_class((jclass)obj, id);
    return id;
}

jobject objects_ref(JNIEnv *env, uint64_t id, int *status) {
    *status = 0;
    if (id == 0) return NULL;
    o_enter();
    entry *e = t_find(&objects, id);
    jobject local = NULL;
    if (e == NULL) {
        *status = LS_INVALID_ID;
    } else {
        local = (*env)->NewLocalRef(env, e->strong ? e->strong : e->weak);
        if (local == NULL) *status = LS_COLLECTED;
    }
    o_exit();
    return local;
}

uint8_t objects_kind(JNIEnv *env, jobject obj) {
    if ((*env)->IsInstanceOf(env, obj, base_g.cls_string)) return OK_STRING;
    if ((*env)->IsInstanceOf(env, obj, base_g.cls_thread)) return OK_THREAD;
    if ((*env)->IsInstanceOf(env, obj, base_g.cls_thread_group)) return OK_THREAD_GROUP;
    if ((*env)->IsInstanceOf(env, obj, base_g.cls_class_loader)) return OK_CLASS_LOADER;
    if ((*env)->IsInstanceOf(env, obj, base_g.cls_class)) return OK_CLASS_OBJECT;
    jclass cls = (*env)->GetObjectClass(env, obj);
    jboolean is_array = JNI_FALSE;
    (*base_g.jvmti)->IsArrayClass(base_g.jvmti, cls, &is_array);
    (*env)->DeleteLocalRef(env, cls);
    return is_array ? OK_ARRAY : OK_OBJECT;
}

int objects_pin(JNIEnv *env, uint64_t id) {
    int status;
    jobject local = objects_ref(env, id, &status);
    if (local == NULL) return status ? status : LS_INVALID_ID;
    o_enter();
    entry *e = t_find(&objects, id);
    if (e == NULL) {
        status = LS_INVALID_ID;
    } else if (e->pins++ == 0) {
        if (e->strong == NULL) e->strong = (*env)->NewGlobalRef(env, local);
        pin_total++;
    }
    o_exit();
    (*env)->DeleteLocalRef(env, local);
    return status;
}

int objects_unpin(JNIEnv *env, uint64_t id) {
    int status = 0;
    o_enter();
    entry *e = t_find(&objects, id);
    if (e == NULL) {
        status = LS_INVALID_ID;
    } else if (e->pins > 0 && --e->pins == 0) {
        if (!e->by_all) {
            (*env)->DeleteGlobalRef(env, e->strong);
            e->strong = NULL;
        }
        pin_total--;
    }
    o_exit();
    return status;
}

void objects_unpin_all(JNIEnv *env) {
    o_enter();
    for (size_t i = 0; i < objects.nbuckets; i++)
        for (entry *e = objects.buckets[i]; e; e = e->next)
            if (e->strong) {
                (*env)->DeleteGlobalRef(env, e->strong);
                e->strong = NULL;
                e->pins = 0;
                e->by_all = false;
            }
    pin_total = 0;
    pin_all_depth = 0;
    o_exit();
}

/* Threads, thread groups, classes, class loaders and modules keep their ids: the daemon keys its
 * thread and class models by them (and thread records carry theirs), so they stay stable for the
 * connection.  Other objects are forgotten: a later send gives them a new id, as in the reference. */
static bool keeps_its_id(JNIEnv *env, jobject obj) {
    return (*env)->IsInstanceOf(env, obj, base_g.cls_thread) || (*env)->IsInstanceOf(env, obj, base_g.cls_class) ||
           (*env)->IsInstanceOf(env, obj, base_g.cls_thread_group) ||
           (*env)->IsInstanceOf(env, obj, base_g.cls_class_loader) || (*env)->IsInstanceOf(env, obj, base_g.cls_module);
}

/* Kept ids of objects collected since their release: nobody holds them, and no object can be sent
 * under them again, so their entries go (a program that starts and drops threads would otherwise grow
 * the table for as long as it is debugged).  Lock held. */
static void sweep_released(JNIEnv *env) {
    released_kept = 0;
    for (size_t i = 0; i < objects.nbuckets; i++) {
        entry **pp = &objects.buckets[i];
        while (*pp) {
            entry *e = *pp;
            if (e->released && e->strong == NULL && (*env)->IsSameObject(env, e->weak, NULL)) {
                *pp = e->next;
                objects.count--;
                (*env)->DeleteWeakGlobalRef(env, e->weak);
                free(e);
            } else {
                if (e->released) released_kept++;
                pp = &e->next;
            }
        }
    }
    sweep_at = released_kept * 2 > 1024 ? released_kept * 2 : 1024;
}

void objects_release(JNIEnv *env, uint64_t id) {
    o_enter();
    entry *e = t_find(&objects, id);
    jobject local = e != NULL ? (*env)->NewLocalRef(env, e->weak) : NULL;
    if (local != NULL && keeps_its_id(env, local)) {
        /* Kept, but as good as disposed otherwise: its pins go, as a disposed id's do. */
        if (e->pins > 0) {
            e->pins = 0;
            pin_total--;
            if (!e->by_all && e->strong) {
                (*env)->DeleteGlobalRef(env, e->strong);
                e->strong = NULL;
            }
        }
        (*env)->DeleteLocalRef(env, local);
        if (!e->released) {
            e->released = true;
            if (++released_kept >= sweep_at) sweep_released(env);
        }
        o_exit();
        return;
    }
    e = t_remove(&objects, id);
    if (e != NULL) {
        if (local != NULL) {
            (*base_g.jvmti)->SetTag(base_g.jvmti, local, 0);
            (*env)->DeleteLocalRef(env, local);
        }
        (*env)->DeleteWeakGlobalRef(env, e->weak);
        if (e->strong) (*env)->DeleteGlobalRef(env, e->strong);
        if (e->pins > 0) pin_total--;
        free(e);
    }
    o_exit();
}

/* While every thread is suspended (a suspend-all is in force) every id is held strongly, as the
 * reference agent does (commonRef pinAll): a debugger looking at a stopped VM must not see its
 * objects vanish.  Counted with the suspend-alls; the explicit pins stay as they are. */
void objects_pin_all(JNIEnv *env) {
    o_enter();
    if (pin_all_depth++ == 0) {
        for (size_t i = 0; i < objects.nbuckets; i++)
            for (entry *e = objects.buckets[i]; e; e = e->next) {
                if (e->strong == NULL) {
                    jobject local = (*env)->NewLocalRef(env, e->weak);
                    if (local == NULL) continue;  /* already collected */
                    e->strong = (*env)->NewGlobalRef(env, local);
                    (*env)->DeleteLocalRef(env, local);
                }
                e->by_all = true;
            }
    }
    o_exit();
}

void objects_unpin_all_suspended(JNIEnv *env) {
    o_enter();
    if (pin_all_depth > 0 && --pin_all_depth == 0) {
        for (size_t i = 0; i < objects.nbuckets; i++)
            for (entry *e = objects.buckets[i]; e; e = e->next) {
                if (!e->by_all) continue;
                e->by_all = false;
                if (e->pins == 0 && e->strong) {
                    (*env)->DeleteGlobalRef(env, e->strong);
                    e->strong = NULL;
                }
            }
    }
    o_exit();
}

void objects_stats(uint64_t *live, uint64_t *pins) {
    o_enter();
    *live = objects.count;
    *pins = pin_total;
    o_exit();
}

/* ---- method and field ids ------------------------------------------------------------- */

/* Each handed-out id keeps its declaring class by a weak global reference: a debugger asking about
 * a class must not keep it (and its loader) from unloading, as the reference agent does not.  Once
 * the class is collected its ids answer INVALID_METHODID / INVALID_FIELDID and never reach JNI or
 * JVMTI again (HotSpot frees a static field's jfieldID with its class).  The entries of collected
 * classes are swept when the table has doubled since the last sweep (amortized).  Lock held. */
static size_t methods_sweep_at = 1024, fields_sweep_at = 1024;

static bool class_gone(JNIEnv *env, jweak weak) {
    return weak == NULL || (*env)->IsSameObject(env, weak, NULL);
}

static void sweep_unloaded(JNIEnv *env, table *t, size_t *at) {
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry **pp = &t->buckets[i];
        while (*pp) {
            entry *e = *pp;
            if (class_gone(env, e->weak)) {
                *pp = e->next;
                t->count--;
                if (e->weak) (*env)->DeleteWeakGlobalRef(env, e->weak);
                free(e);
            } else {
                pp = &e->next;
            }
        }
    }
    *at = t->count * 2 > 1024 ? t->count * 2 : 1024;
}

static JNIEnv *current_env(void) {
    JNIEnv *env = NULL;
    if ((*base_g.jvm)->GetEnv(base_g.jvm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return NULL;
    return env;
}

void objects_method_remember(JNIEnv *env, jmethodID m, jclass declaring) {
    if (m == NULL || declaring == NULL) return;
    o_enter();
    entry *e = t_find(&methods, (uint64_t)(uintptr_t)m);
    if (e == NULL) {
        if (methods.count >= methods_sweep_at) sweep_unloaded(env, &methods, &methods_sweep_at);
        e = t_add(&methods, (uint64_t)(uintptr_t)m);
        if (e) e->weak = (*env)->NewWeakGlobalRef(env, declaring);
    } else if (e->weak == NULL || !(*env)->IsSameObject(env, e->weak, declaring)) {
        /* Its class was collected and the VM gave the id to a method of another class. */
        if (e->weak) (*env)->DeleteWeakGlobalRef(env, e->weak);
        e->weak = (*env)->NewWeakGlobalRef(env, declaring);
    }
    o_exit();
}

int objects_method_check_unloaded(uint64_t id, jmethodID *out, bool *unloaded) {
    JNIEnv *env = current_env();
    if (unloaded) *unloaded = false;
    o_enter();
    entry *e = t_find(&methods, id);
    bool gone = e != NULL && (env == NULL || class_gone(env, e->weak));
    o_exit();
    if (e == NULL) return LS_INVALID_METHOD;
    if (gone) {
        if (unloaded) *unloaded = true;
        return LS_INVALID_METHOD;
    }
    *out = (jmethodID)(uintptr_t)id;
    return 0;
}

int objects_method_check(uint64_t id, jmethodID *out) { return objects_method_check_unloaded(id, out, NULL); }

/* HotSpot's instance jfieldIDs encode a field offset, so the same value names different fields in
 * unrelated classes: a field id is only meaningful with a class, and each (id, class) is kept. */
void objects_field_remember(JNIEnv *env, jfieldID f, jclass declaring, bool is_static, uint8_t tag) {
    if (f == NULL || declaring == NULL) return;
    uint64_t key = (uint64_t)(uintptr_t)f;
    o_enter();
    bool known = false;
    if (fields.nbuckets)
        for (entry *e = fields.buckets[hash64(key, fields.nbuckets)]; e && !known; e = e->next)
            known = e->key == key && e->weak && (*env)->IsSameObject(env, e->weak, declaring);
    if (!known) {
        if (fields.count >= fields_sweep_at) sweep_unloaded(env, &fields, &fields_sweep_at);
        entry *e = t_add(&fields, key);
        if (e) {
            e->weak = (*env)->NewWeakGlobalRef(env, declaring);
            e->is_static = is_static;
            e->pins = tag;
        }
    }
    o_exit();
}

/* *declaring, when asked for, is a local reference the caller deletes: it holds the class while the
 * field id is used.  An entry whose class was collected matches nothing. */
int objects_field_check(JNIEnv *env, uint64_t id, jclass target, bool want_static, jfieldID *out, uint8_t *tag,
                jclass *declaring) {
    int status = LS_INVALID_FIELD;
    o_enter();
    if (fields.nbuckets)
        for (entry *e = fields.buckets[hash64(id, fields.nbuckets)]; e; e = e->next) {
            if (e->key != id || e->is_static != want_static || e->weak == NULL) continue;
            jclass decl = (*env)->NewLocalRef(env, e->weak);
            if (decl == NULL) continue;  /* its class was unloaded */
            if (target == NULL || (*env)->IsAssignableFrom(env, target, decl)) {
                *out = (jfieldID)(uintptr_t)id;
                if (tag) *tag = (uint8_t)e->pins;
                if (declaring) *declaring = decl;
                else (*env)->DeleteLocalRef(env, decl);
                status = 0;
                break;
            }
            (*env)->DeleteLocalRef(env, decl);
        }
    o_exit();
    return status;
}

uint64_t objects_fields_count(void) { return fields.count; }
uint64_t objects_methods_count(void) { return methods.count; }
