/* Executors: the VM as a whole (properties, classes, threads, suspension, heap queries). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "breakpoints.h"
#include "buf.h"
#include "evmode.h"
#include "exec_vm.h"
#include "filters.h"
#include "link.h"
#include "objects.h"
#include "smap.h"
#include "threads.h"
#include "values.h"
#include "vt_events.h"

int exec_vm_vm_info(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    PARSED(in);
    jint n;
    char **keys;
    CHECK((*base_g.jvmti)->GetSystemProperties(base_g.jvmti, &n, &keys));
    buf_out_u32(out, (uint32_t)base_g.hello_flags);
    buf_out_u64(out, base_g.caps_mask);
    size_t count_at = out->len;
    buf_out_u32(out, 0);
    uint32_t written = 0;
    for (jint i = 0; i < n; i++) {
        char *value = NULL;
        if ((*base_g.jvmti)->GetSystemProperty(base_g.jvmti, keys[i], &value) == JVMTI_ERROR_NONE) {
            buf_out_str(out, keys[i]);
            buf_out_str(out, value);
            written++;
        }
        base_jvmti_free(value);
        base_jvmti_free(keys[i]);
    }
    base_jvmti_free(keys);
    buf_out_put_u32_at(out, count_at, written);
    return 0;
}

int exec_vm_all_classes(JNIEnv *env, inbuf *in, outbuf *out) {
    PARSED(in);
    jint n;
    jclass *classes;
    CHECK((*base_g.jvmti)->GetLoadedClasses(base_g.jvmti, &n, &classes));
    buf_out_u32(out, (uint32_t)n);
    for (jint i = 0; i < n; i++) {
        jint status = 0;
        char *sig = NULL, *gen = NULL;
        (*base_g.jvmti)->GetClassStatus(base_g.jvmti, classes[i], &status);
        (*base_g.jvmti)->GetClassSignature(base_g.jvmti, classes[i], &sig, &gen);
        buf_out_u64(out, objects_id(env, classes[i]));
        buf_out_u8(out, values_ref_kind_of(classes[i]));
        buf_out_u32(out, (uint32_t)status);
        buf_out_str(out, sig);
        buf_out_str(out, gen);
        base_jvmti_free(sig);
        base_jvmti_free(gen);
        (*env)->DeleteLocalRef(env, classes[i]);
    }
    base_jvmti_free(classes);
    return 0;
}

static char *to_modified_utf8(const char *s, size_t n);

/* A debugger's lookup of one class (JDI asks it at every assignment of a String): only the matches
 * get an id, and no class list crosses the link. */
int exec_vm_classes_by_signature(JNIEnv *env, inbuf *in, outbuf *out) {
    uint32_t len;
    const uint8_t *raw = buf_in_blob(in, &len);
    if (!buf_in_done(in)) return LS_BAD_MESSAGE;
    char *wanted = to_modified_utf8((const char *)raw, len);
    if (wanted == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    jint n;
    jclass *classes;
    jvmtiError err = (*base_g.jvmti)->GetLoadedClasses(base_g.jvmti, &n, &classes);
    if (err != JVMTI_ERROR_NONE) {
        free(wanted);
        return (int)err;
    }
    size_t count_at = out->len;
    uint32_t found = 0;
    buf_out_u32(out, 0);
    for (jint i = 0; i < n; i++) {
        char *sig = NULL;
        if ((*base_g.jvmti)->GetClassSignature(base_g.jvmti, classes[i], &sig, NULL) == JVMTI_ERROR_NONE && sig &&
            strcmp(sig, wanted) == 0) {
            jint status = 0;
            (*base_g.jvmti)->GetClassStatus(base_g.jvmti, classes[i], &status);
            buf_out_u64(out, objects_id(env, classes[i]));
            buf_out_u8(out, values_ref_kind_of(classes[i]));
            buf_out_u32(out, (uint32_t)status);
            found++;
        }
        base_jvmti_free(sig);
        (*env)->DeleteLocalRef(env, classes[i]);
    }
    base_jvmti_free(classes);
    free(wanted);
    buf_out_put_u32_at(out, count_at, found);
    return 0;
}

/* Writes a list of thread ids, leaving out the agent's own threads. */
static void ob_threads(outbuf *out, JNIEnv *env, jint n, jthread *threads) {
    size_t count_at = out->len;
    uint32_t written = 0;
    buf_out_u32(out, 0);
    for (jint i = 0; i < n; i++) {
        if (!link_is_agent_thread(env, threads[i])) {
            buf_out_u64(out, objects_id(env, threads[i]));
            written++;
        }
        (*env)->DeleteLocalRef(env, threads[i]);
    }
    buf_out_put_u32_at(out, count_at, written);
}

int exec_vm_all_threads(JNIEnv *env, inbuf *in, outbuf *out) {
    PARSED(in);
    base_lock_enter();
    threads_drop_dead(env);
    base_lock_exit();
    jint n;
    jthread *threads;
    CHECK((*base_g.jvmti)->GetAllThreads(base_g.jvmti, &n, &threads));
    size_t count_at = out->len;
    ob_threads(out, env, n, threads);
    base_jvmti_free(threads);
    base_lock_enter();
    vt_events_threads_append_virtual(env, out, count_at);  /* includevirtualthreads=y */
    base_lock_exit();
    return 0;
}

int exec_vm_top_thread_groups(JNIEnv *env, inbuf *in, outbuf *out) {
    PARSED(in);
    jint n;
    jthreadGroup *groups;
    CHECK((*base_g.jvmti)->GetTopThreadGroups(base_g.jvmti, &n, &groups));
    values_out_ids(out, env, n, groups);
    base_jvmti_free(groups);
    return 0;
}

int exec_vm_group_info(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    jobject group;
    int st = values_object_of_class(env, id, base_g.cls_thread_group, JVMTI_ERROR_INVALID_THREAD_GROUP, &group);
    if (st) return st;
    jvmtiThreadGroupInfo info;
    CHECK((*base_g.jvmti)->GetThreadGroupInfo(base_g.jvmti, group, &info));
    buf_out_str(out, info.name);
    buf_out_u64(out, objects_id(env, info.parent));
    base_jvmti_free(info.name);
    return 0;
}

int exec_vm_group_children(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    jobject group;
    int st = values_object_of_class(env, id, base_g.cls_thread_group, JVMTI_ERROR_INVALID_THREAD_GROUP, &group);
    if (st) return st;
    jint nt, ng;
    jthread *threads;
    jthreadGroup *groups;
    CHECK((*base_g.jvmti)->GetThreadGroupChildren(base_g.jvmti, group, &nt, &threads, &ng, &groups));
    ob_threads(out, env, nt, threads);
    values_out_ids(out, env, ng, groups);
    base_jvmti_free(threads);
    base_jvmti_free(groups);
    return 0;
}

int exec_vm_suspend_all(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    PARSED(in);
    if (!base_g.caps.can_suspend) return LS_NOT_CAPABLE;
    base_lock_enter();
    threads_drop_dead(env);
    int st = threads_suspend_all(env, NULL);
    base_lock_exit();
    return st;
}

int exec_vm_resume_all(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    PARSED(in);
    base_lock_enter();
    int st = threads_resume_all(env);
    base_lock_exit();
    return st;
}

/* Standard UTF-8 -> modified UTF-8 (4-byte sequences as surrogate pairs): JNI reads only the latter,
 * and the daemon may pass either. Malformed input is rejected rather than guessed at. */
static char *to_modified_utf8(const char *s, size_t n) {
    char *out = malloc(n * 2 + 1);
    if (out == NULL) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0xF0 && i + 3 < n) {
            uint32_t cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(s[i + 1] & 0x3F) << 12) |
                          ((uint32_t)(s[i + 2] & 0x3F) << 6) | (uint32_t)(s[i + 3] & 0x3F);
            cp -= 0x10000;
            uint32_t hi = 0xD800 + (cp >> 10), lo = 0xDC00 + (cp & 0x3FF);
            uint32_t units[2] = {hi, lo};
            for (int k = 0; k < 2; k++) {
                out[o++] = (char)(0xE0 | (units[k] >> 12));
                out[o++] = (char)(0x80 | ((units[k] >> 6) & 0x3F));
                out[o++] = (char)(0x80 | (units[k] & 0x3F));
            }
            i += 4;
        } else if (c == 0) {
            out[o++] = (char)0xC0;
            out[o++] = (char)0x80;
            i++;
        } else {
            out[o++] = (char)c;
            i++;
        }
    }
    out[o] = 0;
    return out;
}

int exec_vm_create_string(JNIEnv *env, inbuf *in, outbuf *out) {
    uint32_t n;
    const uint8_t *raw = buf_in_blob(in, &n);
    if (!buf_in_done(in)) return LS_BAD_MESSAGE;
    for (uint32_t i = 0; i < n; i++) {
        /* A 4-byte lead must have its three continuation bytes. */
        if (raw[i] >= 0xF0 && (i + 3 >= n || (raw[i + 1] & 0xC0) != 0x80 || (raw[i + 2] & 0xC0) != 0x80 ||
                               (raw[i + 3] & 0xC0) != 0x80))
            return JE_INVALID_STRING;
    }
    char *utf = to_modified_utf8((const char *)raw, n);
    if (utf == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    jstring s = (*env)->NewStringUTF(env, utf);
    free(utf);
    if (s == NULL) {
        (*env)->ExceptionClear(env);
        return JVMTI_ERROR_OUT_OF_MEMORY;
    }
    buf_out_u64(out, objects_id(env, s));
    return 0;
}

int exec_vm_release_ids(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    uint32_t n = buf_in_u32(in);
    if (in->bad || (uint64_t)n * 8 != in->len - in->pos) return LS_BAD_MESSAGE;
    for (uint32_t i = 0; i < n; i++) objects_release(env, buf_in_u64(in));
    return 0;
}

/* Heap walks run in a JVMTI environment of their own: its tags are the walk's marks, apart from the
 * object ids (tags of the agent's own environment), and go with it.  Objects found are handed out
 * with ids afterwards, whether they had one or not. */
static jvmtiEnv *walk_env_new(void) {
    jvmtiEnv *walk_env = NULL;
    if ((*base_g.jvm)->GetEnv(base_g.jvm, (void **)&walk_env, JVMTI_VERSION_1_2) != JNI_OK) return NULL;
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*walk_env)->AddCapabilities(walk_env, &caps) != JVMTI_ERROR_NONE) {
        (*walk_env)->DisposeEnvironment(walk_env);
        return NULL;
    }
    return walk_env;
}

#define WALK_FOUND ((jlong)1)
#define WALK_TARGET ((jlong)2)

typedef struct heap_walk {
    jint max;   /* 0: no limit */
    jint found;
    bool self;  /* referrers: the target refers to itself */
} heap_walk;

static bool walk_full(const heap_walk *w) { return w->max > 0 && w->found >= w->max; }

static jint JNICALL instances_cb(jvmtiHeapReferenceKind k, const jvmtiHeapReferenceInfo *ri, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data) {
    (void)k; (void)ri; (void)class_tag; (void)referrer_class_tag; (void)size; (void)referrer_tag_ptr;
    (void)length;
    heap_walk *w = user_data;
    if (*tag_ptr == 0 && !walk_full(w)) {
        *tag_ptr = WALK_FOUND;
        w->found++;
    }
    return walk_full(w) ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS;
}

static jint JNICALL referrers_cb(jvmtiHeapReferenceKind k, const jvmtiHeapReferenceInfo *ri, jlong class_tag,
                                 jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                                 jint length, void *user_data) {
    (void)ri; (void)class_tag; (void)referrer_class_tag; (void)size; (void)length;
    heap_walk *w = user_data;
    (void)k;
    /* Every edge from an object: roots (stacks, JNI) are not referrers.  An instance's edge to its class
     * is one (a class object's referrers are its instances too), as the reference counts it, with the
     * edges of classes to their loader, signers, protection domain, statics and constant pool. */
    if (*tag_ptr != WALK_TARGET || referrer_tag_ptr == NULL || walk_full(w))
        return JVMTI_VISIT_OBJECTS;
    if (referrer_tag_ptr == tag_ptr) {  /* JVMTI's way of saying the object refers to itself */
        if (!w->self) w->found++;
        w->self = true;
    } else if (*referrer_tag_ptr == 0) {
        *referrer_tag_ptr = WALK_FOUND;
        w->found++;
    }
    return walk_full(w) ? JVMTI_VISIT_ABORT : JVMTI_VISIT_OBJECTS;
}

/* The objects the walk marked (and the target, if it refers to itself), with their ids. */
static int walk_reply(JNIEnv *env, jvmtiEnv *walk_env, const heap_walk *w, jobject target, outbuf *out) {
    jint n = 0;
    jobject *objs = NULL;
    jlong found = WALK_FOUND;
    jvmtiError err = (*walk_env)->GetObjectsWithTags(walk_env, 1, &found, &n, &objs, NULL);
    if (err != JVMTI_ERROR_NONE) return (int)err;
    buf_out_u32(out, (uint32_t)(n + (w->self ? 1 : 0)));
    if (w->self) values_out_tagged(out, env, target);
    for (jint i = 0; i < n; i++) {
        values_out_tagged(out, env, objs[i]);
        (*env)->DeleteLocalRef(env, objs[i]);
    }
    (*walk_env)->Deallocate(walk_env, (unsigned char *)objs);
    return 0;
}

/* Instance counts: one walk of the live heap for all the classes asked, in a JVMTI environment of its
 * own, whose tags say nothing to anyone else.  Each class is tagged with its index + 1; a counted
 * object's tag turns negative (a counted class object keeps its index in the absolute value, for
 * its own instances still to come); objects of classes not asked but seen as class objects get
 * `unlisted`, so that their instances, which then pass the class filter, are passed over. */
typedef struct count_walk {
    jlong nclasses;
    jlong *counts;
    jlong unlisted;
} count_walk;

static jint JNICALL count_cb(jvmtiHeapReferenceKind k, const jvmtiHeapReferenceInfo *ri, jlong class_tag,
                             jlong referrer_class_tag, jlong size, jlong *tag_ptr, jlong *referrer_tag_ptr,
                             jint length, void *user_data) {
    (void)k; (void)ri; (void)referrer_class_tag; (void)size; (void)referrer_tag_ptr; (void)length;
    count_walk *w = user_data;
    if (class_tag == 0 || class_tag == w->unlisted || *tag_ptr < 0) return JVMTI_VISIT_OBJECTS;
    *tag_ptr = *tag_ptr > 0 ? -*tag_ptr : w->unlisted;
    jlong index = (class_tag < 0 ? -class_tag : class_tag) - 1;
    if (index < w->nclasses) w->counts[index]++;
    return JVMTI_VISIT_OBJECTS;
}

int exec_vm_instance_counts(JNIEnv *env, inbuf *in, outbuf *out) {
    if (!base_g.caps.can_tag_objects) return LS_NOT_CAPABLE;
    uint32_t n = buf_in_u32(in);
    if (in->bad || (uint64_t)n * 8 != in->len - in->pos) return LS_BAD_MESSAGE;
    jclass *classes = calloc((size_t)n + 1, sizeof *classes);
    jlong *counts = calloc((size_t)n + 1, sizeof *counts);
    uint32_t *same_as = calloc((size_t)n + 1, sizeof *same_as);  /* a class asked twice: its first index */
    jvmtiEnv *walk_env = NULL;
    int st = 0;
    if (classes == NULL || counts == NULL || same_as == NULL || (*env)->EnsureLocalCapacity(env, (jint)n + 16) != 0)
        st = JVMTI_ERROR_OUT_OF_MEMORY;
    /* A class collected since the daemon checked its id (unloaded with its loader) has no instances: 0,
     * as the reference answers, rather than an error for the whole request. */
    for (uint32_t i = 0; i < n && st == 0; i++) {
        st = values_class_from_id(env, buf_in_u64(in), &classes[i]);
        if (st == LS_COLLECTED || st == LS_INVALID_ID) {
            classes[i] = NULL;
            st = 0;
        }
    }
    if (st == 0 && n > 0 && (walk_env = walk_env_new()) == NULL) st = JVMTI_ERROR_INTERNAL;
    for (uint32_t i = 0; i < n && st == 0; i++) {
        jlong tag = 0;
        if (classes[i] == NULL) continue;
        st = (int)(*walk_env)->GetTag(walk_env, classes[i], &tag);
        if (st == 0 && tag > 0) same_as[i] = (uint32_t)tag;  /* index + 1 of its first mention */
        else if (st == 0) st = (int)(*walk_env)->SetTag(walk_env, classes[i], (jlong)i + 1);
    }
    if (st == 0 && n > 0) {
        count_walk w = {(jlong)n, counts, -((jlong)n + 1)};
        jvmtiHeapCallbacks cb;
        memset(&cb, 0, sizeof cb);
        cb.heap_reference_callback = count_cb;
        st = (int)(*walk_env)->FollowReferences(walk_env, JVMTI_HEAP_FILTER_CLASS_UNTAGGED, NULL, NULL, &cb, &w);
    }
    if (walk_env != NULL) (*walk_env)->DisposeEnvironment(walk_env);  /* and every tag with it */
    if (st == 0) {
        buf_out_u32(out, n);
        for (uint32_t i = 0; i < n; i++) buf_out_u64(out, (uint64_t)counts[same_as[i] ? same_as[i] - 1 : i]);
    }
    for (uint32_t i = 0; classes != NULL && i < n; i++)
        if (classes[i] != NULL) (*env)->DeleteLocalRef(env, classes[i]);
    free(classes);
    free(counts);
    free(same_as);
    return st;
}

int exec_vm_class_instances(JNIEnv *env, inbuf *in, outbuf *out) {
    if (!base_g.caps.can_tag_objects) return LS_NOT_CAPABLE;
    uint64_t id = buf_in_u64(in);
    jint max = buf_in_i32(in);
    PARSED(in);
    if (max < 0) return JVMTI_ERROR_ILLEGAL_ARGUMENT;
    jclass cls;
    int st = values_class_from_id(env, id, &cls);
    if (st) return st;
    jvmtiEnv *walk_env = walk_env_new();
    if (walk_env == NULL) st = JVMTI_ERROR_INTERNAL;
    heap_walk w = {max, 0, false};
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = instances_cb;
    if (st == 0) st = (int)(*walk_env)->FollowReferences(walk_env, 0, cls, NULL, &cb, &w);
    if (st == 0) st = walk_reply(env, walk_env, &w, NULL, out);
    if (walk_env != NULL) (*walk_env)->DisposeEnvironment(walk_env);
    (*env)->DeleteLocalRef(env, cls);
    return st;
}

int exec_vm_object_referrers(JNIEnv *env, inbuf *in, outbuf *out) {
    if (!base_g.caps.can_tag_objects) return LS_NOT_CAPABLE;
    uint64_t id = buf_in_u64(in);
    jint max = buf_in_i32(in);
    PARSED(in);
    if (max < 0) return JVMTI_ERROR_ILLEGAL_ARGUMENT;
    jobject obj;
    int st = values_object_from_id(env, id, &obj);
    if (st) return st;
    jvmtiEnv *walk_env = walk_env_new();
    if (walk_env == NULL) st = JVMTI_ERROR_INTERNAL;
    if (st == 0) st = (int)(*walk_env)->SetTag(walk_env, obj, WALK_TARGET);
    heap_walk w = {max, 0, false};
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_reference_callback = referrers_cb;
    if (st == 0) st = (int)(*walk_env)->FollowReferences(walk_env, 0, NULL, NULL, &cb, &w);
    if (st == 0) st = walk_reply(env, walk_env, &w, obj, out);
    if (walk_env != NULL) (*walk_env)->DisposeEnvironment(walk_env);
    (*env)->DeleteLocalRef(env, obj);
    return st;
}

int exec_vm_redefine_classes(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    if (!base_g.caps.can_redefine_classes) return LS_NOT_CAPABLE;
    uint32_t n = buf_in_u32(in);
    if (in->bad || n > in->len) return LS_BAD_MESSAGE;
    jvmtiClassDefinition *defs = calloc(n ? n : 1, sizeof *defs);
    if (defs == NULL) return JVMTI_ERROR_OUT_OF_MEMORY;
    int st = 0;
    for (uint32_t i = 0; i < n && !st; i++) {
        uint64_t id = buf_in_u64(in);
        uint32_t len;
        const uint8_t *bytes = buf_in_blob(in, &len);
        if (in->bad) st = LS_BAD_MESSAGE;
        else st = values_class_from_id(env, id, &defs[i].klass);
        defs[i].class_byte_count = (jint)len;
        defs[i].class_bytes = bytes;
    }
    if (!st && !buf_in_done(in)) st = LS_BAD_MESSAGE;
    if (!st) st = (int)(*base_g.jvmti)->RedefineClasses(base_g.jvmti, (jint)n, defs);
    if (!st) smap_forget_classes();
    free(defs);
    return st;
}

int exec_vm_all_modules(JNIEnv *env, inbuf *in, outbuf *out) {
    PARSED(in);
    jint n;
    jobject *mods;
    CHECK((*base_g.jvmti)->GetAllModules(base_g.jvmti, &n, &mods));
    values_out_ids(out, env, n, mods);
    base_jvmti_free(mods);
    return 0;
}

int exec_vm_module_info(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    jobject mod;
    int st = values_object_of_class(env, id, base_g.cls_module, 42, &mod);  /* 42: JDWP INVALID_MODULE */
    if (st) return st;
    jclass cls = (*env)->GetObjectClass(env, mod);
    jmethodID get_name = (*env)->GetMethodID(env, cls, "getName", "()Ljava/lang/String;");
    jmethodID get_loader = (*env)->GetMethodID(env, cls, "getClassLoader", "()Ljava/lang/ClassLoader;");
    if (get_name == NULL || get_loader == NULL) {
        (*env)->ExceptionClear(env);
        return JVMTI_ERROR_INVALID_MODULE;
    }
    jstring name = (*env)->CallObjectMethod(env, mod, get_name);
    jobject loader = (*env)->CallObjectMethod(env, mod, get_loader);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return LS_INTERNAL;
    }
    const char *utf = name ? (*env)->GetStringUTFChars(env, name, NULL) : NULL;
    buf_out_str(out, utf ? utf : "");
    if (utf) (*env)->ReleaseStringUTFChars(env, name, utf);
    buf_out_u64(out, objects_id(env, loader));
    return 0;
}

int exec_vm_gc(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env; (void)out;
    PARSED(in);
    CHECK((*base_g.jvmti)->ForceGarbageCollection(base_g.jvmti));
    return 0;
}

int exec_vm_agent_stats(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    PARSED(in);
    uint64_t live, pins;
    objects_stats(&live, &pins);
    base_lock_enter();
    int nfilters = filters_count(), nbps = breakpoints_count(), nevents = evmode_enabled_count();
    base_lock_exit();
    struct { const char *name; uint64_t value; } c[] = {
        {"ids", live}, {"pins", pins}, {"filters", (uint64_t)nfilters}, {"breakpoints", (uint64_t)nbps},
        {"methods", objects_methods_count()}, {"fields", objects_fields_count()},
        {"suspend_all_depth", (uint64_t)threads_suspend_all_depth}, {"events_enabled", (uint64_t)nevents},
    };
    buf_out_u32(out, (uint32_t)ARRAY_LEN(c));
    for (size_t i = 0; i < ARRAY_LEN(c); i++) {
        buf_out_str(out, c[i].name);
        buf_out_u64(out, c[i].value);
    }
    return 0;
}
