/* Executors: objects, strings, arrays. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "exec_objects.h"
#include "objects.h"
#include "values.h"

#define OBJECT_ARG(o)                                    \
    jobject o;                                           \
    {                                                    \
        int st_ = values_object_from_id(env, buf_in_u64(in), &o);   \
        if (in->bad) return LS_BAD_MESSAGE;              \
        if (st_) return st_;                             \
    }

int exec_objects_object_type(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    PARSED(in);
    jclass cls = (*env)->GetObjectClass(env, o);
    buf_out_u8(out, objects_kind(env, o));
    buf_out_u64(out, objects_id(env, cls));
    buf_out_u8(out, values_ref_kind_of(cls));
    return 0;
}

int exec_objects_object_get_fields(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    uint32_t n = buf_in_u32(in);
    if (in->bad || (uint64_t)n * 9 != in->len - in->pos) return LS_BAD_MESSAGE;
    return values_get_fields_checked(env, in, out, n, (*env)->GetObjectClass(env, o), o);
}

int exec_objects_object_set_fields(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    OBJECT_ARG(o);
    uint32_t n = buf_in_u32(in);
    if (in->bad) return LS_BAD_MESSAGE;
    return values_set_fields_checked(env, in, n, (*env)->GetObjectClass(env, o), o);
}

static bool thread_in(JNIEnv *env, jthread t, const jthread *list, jint n) {
    for (jint i = 0; i < n; i++)
        if ((*env)->IsSameObject(env, t, list[i])) return true;
    return false;
}

int exec_objects_object_monitor_info(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    PARSED(in);
    if (!base_g.caps.can_get_monitor_info) return LS_NOT_CAPABLE;
    jvmtiMonitorUsage usage;
    CHECK((*base_g.jvmti)->GetObjectMonitorUsage(base_g.jvmti, o, &usage));
    buf_out_u64(out, objects_id(env, usage.owner));
    buf_out_u32(out, (uint32_t)usage.entry_count);
    /* JDWP's waiters are JVMTI's waiters before JDK 23 (blocked entering as well as waiting to be
     * notified); since 23 JVMTI gives the threads in Object.wait() only as notify_waiters, so the union
     * keeps the answer the same on every release (on 17 notify_waiters is a subset of waiters). */
    jint extra = 0;
    for (jint i = 0; i < usage.notify_waiter_count; i++)
        if (!thread_in(env, usage.notify_waiters[i], usage.waiters, usage.waiter_count)) extra++;
    buf_out_u32(out, (uint32_t)(usage.waiter_count + extra));
    for (jint i = 0; i < usage.waiter_count; i++) buf_out_u64(out, objects_id(env, usage.waiters[i]));
    for (jint i = 0; i < usage.notify_waiter_count; i++)
        if (!thread_in(env, usage.notify_waiters[i], usage.waiters, usage.waiter_count))
            buf_out_u64(out, objects_id(env, usage.notify_waiters[i]));
    base_jvmti_free(usage.waiters);
    base_jvmti_free(usage.notify_waiters);
    return 0;
}

int exec_objects_object_pin(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    return objects_pin(env, id);
}

int exec_objects_object_unpin(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    return objects_unpin(env, id);
}

int exec_objects_object_is_collected(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    int st;
    jobject o = objects_ref(env, id, &st);
    if (o == NULL && st != LS_COLLECTED) return st ? st : LS_INVALID_ID;
    buf_out_u8(out, o == NULL);
    return 0;
}

int exec_objects_string_value(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    PARSED(in);
    if (!(*env)->IsInstanceOf(env, o, base_g.cls_string)) return JVMTI_ERROR_INVALID_OBJECT;  /* JDWP INVALID_STRING */
    const char *utf = (*env)->GetStringUTFChars(env, o, NULL);
    if (utf == NULL) {
        if ((*env)->ExceptionCheck(env)) {
            (*env)->ExceptionClear(env);
            return JVMTI_ERROR_OUT_OF_MEMORY;
        }
        /* A String whose constructor has not run yet (no value array): HotSpot gives no chars and
         * no exception; the reference answers the empty string. */
        buf_out_str(out, "");
        return 0;
    }
    buf_out_str(out, utf);
    (*env)->ReleaseStringUTFChars(env, o, utf);
    return 0;
}

/* The component tag of an array object, from its class signature. */
static int array_tag(JNIEnv *env, jobject arr, uint8_t *tag) {
    jclass cls = (*env)->GetObjectClass(env, arr);
    char *sig = NULL;
    jvmtiError err = (*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, NULL);
    if (err != JVMTI_ERROR_NONE) return (int)err;
    int st = 0;
    if (sig[0] != '[') st = JE_INVALID_ARRAY;
    else *tag = values_tag_of_signature(sig + 1);
    base_jvmti_free(sig);
    return st;
}

int exec_objects_array_length(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    PARSED(in);
    uint8_t tag;
    int st = array_tag(env, o, &tag);
    if (st) return st;
    buf_out_u32(out, (uint32_t)(*env)->GetArrayLength(env, o));
    return 0;
}

int exec_objects_array_get(JNIEnv *env, inbuf *in, outbuf *out) {
    OBJECT_ARG(o);
    jint first = buf_in_i32(in), length = buf_in_i32(in);
    PARSED(in);
    uint8_t tag;
    int st = array_tag(env, o, &tag);
    if (st) return st;
    jint n = (*env)->GetArrayLength(env, o);
    if (first < 0 || first > n) return JE_INVALID_INDEX;
    if (length < 0 || length > n - first) return JE_INVALID_LENGTH;
    buf_out_u8(out, tag);
    buf_out_u32(out, (uint32_t)length);
    for (jint i = first; i < first + length; i++) {
        jvalue v;
        memset(&v, 0, sizeof v);
        switch (tag) {
        case TAG_BYTE: (*env)->GetByteArrayRegion(env, o, i, 1, &v.b); break;
        case TAG_BOOLEAN: (*env)->GetBooleanArrayRegion(env, o, i, 1, &v.z); break;
        case TAG_CHAR: (*env)->GetCharArrayRegion(env, o, i, 1, &v.c); break;
        case TAG_SHORT: (*env)->GetShortArrayRegion(env, o, i, 1, &v.s); break;
        case TAG_INT: (*env)->GetIntArrayRegion(env, o, i, 1, &v.i); break;
        case TAG_FLOAT: (*env)->GetFloatArrayRegion(env, o, i, 1, &v.f); break;
        case TAG_LONG: (*env)->GetLongArrayRegion(env, o, i, 1, &v.j); break;
        case TAG_DOUBLE: (*env)->GetDoubleArrayRegion(env, o, i, 1, &v.d); break;
        default: v.l = (*env)->GetObjectArrayElement(env, o, i); break;
        }
        values_out_jvalue(out, env, tag, v);
        if (values_tag_is_object(tag) && v.l) (*env)->DeleteLocalRef(env, v.l);
    }
    return 0;
}

int exec_objects_array_set(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    OBJECT_ARG(o);
    jint first = buf_in_i32(in);
    uint32_t count = buf_in_u32(in);
    if (in->bad) return LS_BAD_MESSAGE;
    uint8_t tag;
    int st = array_tag(env, o, &tag);
    if (st) return st;
    jint n = (*env)->GetArrayLength(env, o);
    if (first < 0 || first > n) return JE_INVALID_INDEX;
    if (count > (uint32_t)(n - first)) return JE_INVALID_LENGTH;
    size_t start = in->pos;
    for (int pass = 0; pass < 2; pass++) {
        in->pos = start;
        for (uint32_t i = 0; i < count; i++) {
            uint8_t vtag;
            jvalue v;
            st = values_in_value(in, env, &vtag, &v);
            if (st) return st;
            if (!values_value_fits(tag, vtag)) return JVMTI_ERROR_TYPE_MISMATCH;
            if (pass == 0) continue;
            jint at = first + (jint)i;
            switch (tag) {
            case TAG_BYTE: (*env)->SetByteArrayRegion(env, o, at, 1, &v.b); break;
            case TAG_BOOLEAN: (*env)->SetBooleanArrayRegion(env, o, at, 1, &v.z); break;
            case TAG_CHAR: (*env)->SetCharArrayRegion(env, o, at, 1, &v.c); break;
            case TAG_SHORT: (*env)->SetShortArrayRegion(env, o, at, 1, &v.s); break;
            case TAG_INT: (*env)->SetIntArrayRegion(env, o, at, 1, &v.i); break;
            case TAG_FLOAT: (*env)->SetFloatArrayRegion(env, o, at, 1, &v.f); break;
            case TAG_LONG: (*env)->SetLongArrayRegion(env, o, at, 1, &v.j); break;
            case TAG_DOUBLE: (*env)->SetDoubleArrayRegion(env, o, at, 1, &v.d); break;
            default:
                (*env)->SetObjectArrayElement(env, o, at, v.l);
                if ((*env)->ExceptionCheck(env)) {  /* ArrayStoreException: wrong element type */
                    (*env)->ExceptionClear(env);
                    return JVMTI_ERROR_TYPE_MISMATCH;
                }
                break;
            }
        }
        PARSED(in);
    }
    return 0;
}

int exec_objects_array_new(JNIEnv *env, inbuf *in, outbuf *out) {
    jclass cls;
    uint64_t id = buf_in_u64(in);
    jint length = buf_in_i32(in);
    PARSED(in);
    int st = values_class_from_id(env, id, &cls);
    if (st) return st;
    if (length < 0) return JE_INVALID_LENGTH;
    char *sig = NULL;
    CHECK((*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, NULL));
    jobject arr = NULL;
    if (sig[0] != '[') {
        st = JVMTI_ERROR_INVALID_CLASS;
    } else {
        switch (sig[1]) {
        case 'Z': arr = (*env)->NewBooleanArray(env, length); break;
        case 'B': arr = (*env)->NewByteArray(env, length); break;
        case 'C': arr = (*env)->NewCharArray(env, length); break;
        case 'S': arr = (*env)->NewShortArray(env, length); break;
        case 'I': arr = (*env)->NewIntArray(env, length); break;
        case 'J': arr = (*env)->NewLongArray(env, length); break;
        case 'F': arr = (*env)->NewFloatArray(env, length); break;
        case 'D': arr = (*env)->NewDoubleArray(env, length); break;
        default: {
            jclass comp = NULL;
            /* The component class is not reachable from the array class through JNI; use Class.getComponentType. */
            jmethodID gct = (*env)->GetMethodID(env, base_g.cls_class, "getComponentType", "()Ljava/lang/Class;");
            if (gct) comp = (*env)->CallObjectMethod(env, cls, gct);
            if (comp) arr = (*env)->NewObjectArray(env, length, comp, NULL);
            break;
        }
        }
        if (arr == NULL) {
            (*env)->ExceptionClear(env);
            st = JVMTI_ERROR_OUT_OF_MEMORY;
        }
    }
    base_jvmti_free(sig);
    if (st) return st;
    values_out_tagged(out, env, arr);
    return 0;
}
