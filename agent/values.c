/* Shared helpers of the executors: ids to references, values and locations on the link. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "objects.h"
#include "values.h"

int values_object_from_id(JNIEnv *env, uint64_t id, jobject *out) {
    int status;
    if (id == 0) return LS_INVALID_ID;
    *out = objects_ref(env, id, &status);
    return *out ? 0 : (status ? status : LS_INVALID_ID);
}

int values_object_of_class(JNIEnv *env, uint64_t id, jclass want, int wrong, jobject *out) {
    int status = values_object_from_id(env, id, out);
    if (status) return status;
    return (*env)->IsInstanceOf(env, *out, want) ? 0 : wrong;
}

int values_class_from_id(JNIEnv *env, uint64_t id, jclass *out) {
    return values_object_of_class(env, id, base_g.cls_class, JVMTI_ERROR_INVALID_CLASS, out);
}

uint8_t values_ref_kind_of(jclass cls) {
    jboolean b = JNI_FALSE;
    if ((*base_g.jvmti)->IsArrayClass(base_g.jvmti, cls, &b) == JVMTI_ERROR_NONE && b) return RK_ARRAY;
    if ((*base_g.jvmti)->IsInterface(base_g.jvmti, cls, &b) == JVMTI_ERROR_NONE && b) return RK_INTERFACE;
    return RK_CLASS;
}

void values_out_null_location(outbuf *b) {
    buf_out_u8(b, 0);
    buf_out_u64(b, 0);
    buf_out_u64(b, 0);
    buf_out_u64(b, 0);
}

/* A method replaced by a redefinition under a running frame is written as 0, as the reference does
 * (JDI makes an ObsoleteMethodImpl of it). */
uint64_t values_method_wire_id(jmethodID method) {
    jboolean obsolete = JNI_FALSE;
    if ((*base_g.jvmti)->IsMethodObsolete(base_g.jvmti, method, &obsolete) == JVMTI_ERROR_NONE && obsolete) return 0;
    return (uint64_t)(uintptr_t)method;
}

jvmtiError values_out_frame(outbuf *b, JNIEnv *env, jmethodID method, jlocation index) {
    jclass cls = NULL;
    jvmtiError err = (*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, method, &cls);
    if (err != JVMTI_ERROR_NONE) return err;
    objects_method_remember(env, method, cls);
    buf_out_u64(b, objects_id(env, cls));
    buf_out_u8(b, values_ref_kind_of(cls));
    buf_out_u64(b, values_method_wire_id(method));
    buf_out_u64(b, (uint64_t)index);
    (*env)->DeleteLocalRef(env, cls);
    return JVMTI_ERROR_NONE;
}

void values_out_location(outbuf *b, JNIEnv *env, jmethodID method, jlocation index) {
    jclass cls = NULL;
    if (method == NULL || (*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, method, &cls) != JVMTI_ERROR_NONE) {
        values_out_null_location(b);
        return;
    }
    objects_method_remember(env, method, cls);
    buf_out_u8(b, values_ref_kind_of(cls));
    buf_out_u64(b, objects_id(env, cls));
    buf_out_u64(b, values_method_wire_id(method));
    buf_out_u64(b, (uint64_t)index);
    (*env)->DeleteLocalRef(env, cls);
}

bool values_tag_is_object(uint8_t tag) {
    return tag == OK_OBJECT || tag == OK_STRING || tag == OK_THREAD || tag == OK_THREAD_GROUP ||
           tag == OK_CLASS_LOADER || tag == OK_CLASS_OBJECT || tag == OK_ARRAY;
}

uint8_t values_tag_of_signature(const char *sig) {
    if (sig == NULL || !*sig) return TAG_VOID;
    if (sig[0] == 'L') return TAG_OBJECT;
    return (uint8_t)sig[0];  /* [ B C D F I J S Z V are JDWP's tags too */
}

void values_out_tagged(outbuf *b, JNIEnv *env, jobject obj) {
    buf_out_u8(b, obj ? objects_kind(env, obj) : OK_OBJECT);
    buf_out_u64(b, objects_id(env, obj));
}

void values_out_object_value(outbuf *b, JNIEnv *env, jobject obj, uint8_t null_tag) {
    buf_out_u8(b, obj ? objects_kind(env, obj) : (values_tag_is_object(null_tag) ? null_tag : OK_OBJECT));
    buf_out_u64(b, objects_id(env, obj));
}

void values_out_jvalue(outbuf *b, JNIEnv *env, uint8_t tag, jvalue v) {
    if (values_tag_is_object(tag)) {
        values_out_object_value(b, env, v.l, tag);
        return;
    }
    buf_out_u8(b, tag);
    switch (tag) {
    case TAG_BYTE: buf_out_u8(b, (uint8_t)v.b); break;
    case TAG_BOOLEAN: buf_out_u8(b, v.z ? 1 : 0); break;
    case TAG_CHAR: buf_out_u16(b, v.c); break;
    case TAG_SHORT: buf_out_u16(b, (uint16_t)v.s); break;
    case TAG_INT: buf_out_u32(b, (uint32_t)v.i); break;
    case TAG_FLOAT: { uint32_t u; memcpy(&u, &v.f, 4); buf_out_u32(b, u); break; }
    case TAG_LONG: buf_out_u64(b, (uint64_t)v.j); break;
    case TAG_DOUBLE: { uint64_t u; memcpy(&u, &v.d, 8); buf_out_u64(b, u); break; }
    default: break;  /* void: tag only */
    }
}

int values_in_value(inbuf *in, JNIEnv *env, uint8_t *tag, jvalue *v) {
    memset(v, 0, sizeof *v);
    *tag = buf_in_u8(in);
    if (values_tag_is_object(*tag)) {
        uint64_t id = buf_in_u64(in);
        if (in->bad) return LS_BAD_MESSAGE;
        if (id == 0) return 0;
        int status;
        v->l = objects_ref(env, id, &status);
        return v->l ? 0 : (status ? status : LS_INVALID_ID);
    }
    switch (*tag) {
    case TAG_BYTE: v->b = (jbyte)buf_in_u8(in); break;
    case TAG_BOOLEAN: v->z = buf_in_u8(in) ? JNI_TRUE : JNI_FALSE; break;
    case TAG_CHAR: v->c = buf_in_u16(in); break;
    case TAG_SHORT: v->s = (jshort)buf_in_u16(in); break;
    case TAG_INT: v->i = (jint)buf_in_u32(in); break;
    case TAG_FLOAT: { uint32_t u = buf_in_u32(in); memcpy(&v->f, &u, 4); break; }
    case TAG_LONG: v->j = (jlong)buf_in_u64(in); break;
    case TAG_DOUBLE: { uint64_t u = buf_in_u64(in); memcpy(&v->d, &u, 8); break; }
    case TAG_VOID: break;
    default: return LS_BAD_MESSAGE;
    }
    return in->bad ? LS_BAD_MESSAGE : 0;
}

bool values_value_fits(uint8_t declared, uint8_t given) {
    if (values_tag_is_object(declared)) return values_tag_is_object(given);
    return declared == given;
}

jvalue values_get_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag) {
    jvalue v;
    memset(&v, 0, sizeof v);
    if (obj == NULL) {
        switch (tag) {
        case TAG_BYTE: v.b = (*env)->GetStaticByteField(env, cls, f); break;
        case TAG_BOOLEAN: v.z = (*env)->GetStaticBooleanField(env, cls, f); break;
        case TAG_CHAR: v.c = (*env)->GetStaticCharField(env, cls, f); break;
        case TAG_SHORT: v.s = (*env)->GetStaticShortField(env, cls, f); break;
        case TAG_INT: v.i = (*env)->GetStaticIntField(env, cls, f); break;
        case TAG_FLOAT: v.f = (*env)->GetStaticFloatField(env, cls, f); break;
        case TAG_LONG: v.j = (*env)->GetStaticLongField(env, cls, f); break;
        case TAG_DOUBLE: v.d = (*env)->GetStaticDoubleField(env, cls, f); break;
        default: v.l = (*env)->GetStaticObjectField(env, cls, f); break;
        }
    } else {
        switch (tag) {
        case TAG_BYTE: v.b = (*env)->GetByteField(env, obj, f); break;
        case TAG_BOOLEAN: v.z = (*env)->GetBooleanField(env, obj, f); break;
        case TAG_CHAR: v.c = (*env)->GetCharField(env, obj, f); break;
        case TAG_SHORT: v.s = (*env)->GetShortField(env, obj, f); break;
        case TAG_INT: v.i = (*env)->GetIntField(env, obj, f); break;
        case TAG_FLOAT: v.f = (*env)->GetFloatField(env, obj, f); break;
        case TAG_LONG: v.j = (*env)->GetLongField(env, obj, f); break;
        case TAG_DOUBLE: v.d = (*env)->GetDoubleField(env, obj, f); break;
        default: v.l = (*env)->GetObjectField(env, obj, f); break;
        }
    }
    return v;
}

void values_set_field_value(JNIEnv *env, jobject obj, jclass cls, jfieldID f, uint8_t tag, jvalue v) {
    if (obj == NULL) {
        switch (tag) {
        case TAG_BYTE: (*env)->SetStaticByteField(env, cls, f, v.b); break;
        case TAG_BOOLEAN: (*env)->SetStaticBooleanField(env, cls, f, v.z); break;
        case TAG_CHAR: (*env)->SetStaticCharField(env, cls, f, v.c); break;
        case TAG_SHORT: (*env)->SetStaticShortField(env, cls, f, v.s); break;
        case TAG_INT: (*env)->SetStaticIntField(env, cls, f, v.i); break;
        case TAG_FLOAT: (*env)->SetStaticFloatField(env, cls, f, v.f); break;
        case TAG_LONG: (*env)->SetStaticLongField(env, cls, f, v.j); break;
        case TAG_DOUBLE: (*env)->SetStaticDoubleField(env, cls, f, v.d); break;
        default: (*env)->SetStaticObjectField(env, cls, f, v.l); break;
        }
    } else {
        switch (tag) {
        case TAG_BYTE: (*env)->SetByteField(env, obj, f, v.b); break;
        case TAG_BOOLEAN: (*env)->SetBooleanField(env, obj, f, v.z); break;
        case TAG_CHAR: (*env)->SetCharField(env, obj, f, v.c); break;
        case TAG_SHORT: (*env)->SetShortField(env, obj, f, v.s); break;
        case TAG_INT: (*env)->SetIntField(env, obj, f, v.i); break;
        case TAG_FLOAT: (*env)->SetFloatField(env, obj, f, v.f); break;
        case TAG_LONG: (*env)->SetLongField(env, obj, f, v.j); break;
        case TAG_DOUBLE: (*env)->SetDoubleField(env, obj, f, v.d); break;
        default: (*env)->SetObjectField(env, obj, f, v.l); break;
        }
    }
}

static bool has_signature(JNIEnv *env, jclass c, const char *sig, int depth) {
    if (c == NULL || depth > 64) return false;
    char *s = NULL;
    bool found = false;
    if ((*base_g.jvmti)->GetClassSignature(base_g.jvmti, c, &s, NULL) == JVMTI_ERROR_NONE) found = strcmp(s, sig) == 0;
    base_jvmti_free(s);
    jint n = 0;
    jclass *ifaces = NULL;
    if (!found && (*base_g.jvmti)->GetImplementedInterfaces(base_g.jvmti, c, &n, &ifaces) == JVMTI_ERROR_NONE) {
        for (jint i = 0; i < n && !found; i++) found = has_signature(env, ifaces[i], sig, depth + 1);
        for (jint i = 0; i < n; i++) (*env)->DeleteLocalRef(env, ifaces[i]);
        base_jvmti_free(ifaces);
    }
    if (!found) {
        jclass sup = (*env)->GetSuperclass(env, c);
        found = has_signature(env, sup, sig, depth + 1);
        if (sup) (*env)->DeleteLocalRef(env, sup);
    }
    return found;
}

/* A loaded class of that signature defined by (or initiated for) loader, found without running Java
 * code: class loading on the executor could block on a lock a suspended thread holds. */
static jclass loaded_class(JNIEnv *env, jobject loader, const char *sig) {
    jint n = 0;
    jclass *classes = NULL;
    jclass found = NULL;
    if ((*base_g.jvmti)->GetClassLoaderClasses(base_g.jvmti, loader, &n, &classes) != JVMTI_ERROR_NONE) return NULL;
    for (jint i = 0; i < n; i++) {
        char *s = NULL;
        if (found == NULL && (*base_g.jvmti)->GetClassSignature(base_g.jvmti, classes[i], &s, NULL) == JVMTI_ERROR_NONE &&
            strcmp(s, sig) == 0)
            found = classes[i];
        else
            (*env)->DeleteLocalRef(env, classes[i]);
        base_jvmti_free(s);
    }
    base_jvmti_free(classes);
    return found;
}

/* Array covariance by signatures: [S fits [D when S fits D (references), or S == D (primitives). */
static bool array_fits(JNIEnv *env, jclass array_class, const char *have, const char *want) {
    while (have[0] == '[' && want[0] == '[') {
        have++;
        want++;
    }
    if (want[0] == '[') return false;
    if (have[0] != 'L' && have[0] != '[') return strcmp(have, want) == 0;  /* primitive component */
    if (want[0] != 'L') return false;
    if (strcmp(want, "Ljava/lang/Object;") == 0) return true;
    if (have[0] == '[')
        return strcmp(want, "Ljava/lang/Cloneable;") == 0 || strcmp(want, "Ljava/io/Serializable;") == 0;
    jobject loader = NULL;
    (*base_g.jvmti)->GetClassLoader(base_g.jvmti, array_class, &loader);  /* an array's loader is its element's */
    jclass element = loaded_class(env, loader, have);
    bool fits = element != NULL && has_signature(env, element, want, 0);
    if (element) (*env)->DeleteLocalRef(env, element);
    return fits;
}

int values_object_fits(JNIEnv *env, jobject obj, const char *sig, jclass holder) {
    if (obj == NULL) return 0;
    if (sig == NULL || (sig[0] != 'L' && sig[0] != '[')) return JVMTI_ERROR_TYPE_MISMATCH;
    if (strcmp(sig, "Ljava/lang/Object;") == 0) return 0;
    (void)holder;
    jclass cls = (*env)->GetObjectClass(env, obj);
    bool fits;
    if (sig[0] == '[') {
        char *have = NULL;
        fits = (*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &have, NULL) == JVMTI_ERROR_NONE &&
               array_fits(env, cls, have, sig);
        base_jvmti_free(have);
    } else {
        fits = has_signature(env, cls, sig, 0);
    }
    (*env)->DeleteLocalRef(env, cls);
    return fits ? 0 : JVMTI_ERROR_TYPE_MISMATCH;
}

int values_field_value_fits(JNIEnv *env, jclass decl, jfieldID f, uint8_t tag, jvalue v) {
    if (!values_tag_is_object(tag) || v.l == NULL) return 0;
    char *sig = NULL;
    jvmtiError err = (*base_g.jvmti)->GetFieldName(base_g.jvmti, decl, f, NULL, &sig, NULL);
    if (err != JVMTI_ERROR_NONE) return (int)err;
    int st = values_object_fits(env, v.l, sig, decl);
    base_jvmti_free(sig);
    return st;
}

int values_set_fields_checked(JNIEnv *env, inbuf *in, uint32_t n, jclass cls, jobject obj) {
    size_t start = in->pos;
    for (int pass = 0; pass < 2; pass++) {
        in->pos = start;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t fid = buf_in_u64(in);
            uint8_t vtag, tag;
            jvalue v;
            int st = values_in_value(in, env, &vtag, &v);
            if (st) return st;
            jfieldID f;
            jclass decl;
            st = objects_field_check(env, fid, cls, obj == NULL, &f, &tag, &decl);
            if (st) return st;
            if (!values_value_fits(tag, vtag)) st = JVMTI_ERROR_TYPE_MISMATCH;
            if (!st && pass == 0) st = values_field_value_fits(env, decl, f, tag, v);
            if (!st && pass == 1) values_set_field_value(env, obj, decl, f, tag, v);
            (*env)->DeleteLocalRef(env, decl);
            if (st) return st;
        }
        PARSED(in);
    }
    return 0;
}

void values_out_ids(outbuf *out, JNIEnv *env, jint n, const jobject *objs) {
    buf_out_u32(out, (uint32_t)n);
    for (jint i = 0; i < n; i++) buf_out_u64(out, objects_id(env, objs[i]));
}

int values_get_fields_checked(JNIEnv *env, inbuf *in, outbuf *out, uint32_t n, jclass cls, jobject obj) {
    buf_out_u32(out, n);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t fid = buf_in_u64(in);
        uint8_t asked = buf_in_u8(in), tag;
        jfieldID f;
        jclass decl;
        bool is_static = obj == NULL;
        int st = objects_field_check(env, fid, cls, is_static, &f, &tag, &decl);
        if (st && !is_static) {  /* JDWP lets ObjectReference.GetValues read statics too. */
            st = objects_field_check(env, fid, cls, true, &f, &tag, &decl);
            is_static = st == 0;
        }
        if (st) return st;
        if (!values_value_fits(tag, asked)) st = JVMTI_ERROR_TYPE_MISMATCH;
        else values_out_jvalue(out, env, tag, values_get_field_value(env, is_static ? NULL : obj, decl, f, tag));
        (*env)->DeleteLocalRef(env, decl);
        if (st) return st;
    }
    return 0;
}
