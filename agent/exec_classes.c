/* Executors: reference types and methods (GetClass* / GetMethod* JVMTI functions). */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "exec_classes.h"
#include "objects.h"
#include "values.h"

#define CLASS_ARG(cls)                                   \
    jclass cls;                                          \
    uint64_t cls##_id = buf_in_u64(in);                      \
    PARSED(in);                                          \
    {                                                    \
        int st_ = values_class_from_id(env, cls##_id, &cls);    \
        if (st_) return st_;                             \
    }

int exec_classes_class_signature(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    char *sig = NULL, *gen = NULL;
    CHECK((*base_g.jvmti)->GetClassSignature(base_g.jvmti, cls, &sig, &gen));
    buf_out_u8(out, values_ref_kind_of(cls));
    buf_out_str(out, sig);
    buf_out_str(out, gen);
    base_jvmti_free(sig);
    base_jvmti_free(gen);
    return 0;
}

/* A class's fact that JVMTI answers as one int (status, modifiers), or as one string (source file,
 * source debug extension). */
typedef jvmtiError (JNICALL *class_int_fn)(jvmtiEnv *, jclass, jint *);
typedef jvmtiError (JNICALL *class_string_fn)(jvmtiEnv *, jclass, char **);

static int class_int(JNIEnv *env, inbuf *in, outbuf *out, class_int_fn get) {
    CLASS_ARG(cls);
    jint value;
    CHECK(get(base_g.jvmti, cls, &value));
    buf_out_u32(out, (uint32_t)value);
    return 0;
}

static int class_string(JNIEnv *env, inbuf *in, outbuf *out, class_string_fn get) {
    CLASS_ARG(cls);
    char *value = NULL;
    CHECK(get(base_g.jvmti, cls, &value));
    buf_out_str(out, value);
    base_jvmti_free(value);
    return 0;
}

int exec_classes_class_status(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_int(env, in, out, (*base_g.jvmti)->GetClassStatus);
}

int exec_classes_class_modifiers(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_int(env, in, out, (*base_g.jvmti)->GetClassModifiers);
}

int exec_classes_class_loader(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jobject loader = NULL;
    CHECK((*base_g.jvmti)->GetClassLoader(base_g.jvmti, cls, &loader));
    buf_out_u64(out, objects_id(env, loader));
    return 0;
}

int exec_classes_class_superclass(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jclass sup = (*env)->GetSuperclass(env, cls);
    buf_out_u64(out, objects_id(env, sup));
    return 0;
}

int exec_classes_class_interfaces(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jint n;
    jclass *ifaces;
    CHECK((*base_g.jvmti)->GetImplementedInterfaces(base_g.jvmti, cls, &n, &ifaces));
    values_out_ids(out, env, n, ifaces);
    base_jvmti_free(ifaces);
    return 0;
}

int exec_classes_class_source_file(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_string(env, in, out, (*base_g.jvmti)->GetSourceFileName);
}

int exec_classes_class_source_debug_extension(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_string(env, in, out, (*base_g.jvmti)->GetSourceDebugExtension);
}

int exec_classes_class_fields(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jint n;
    jfieldID *fs;
    CHECK((*base_g.jvmti)->GetClassFields(base_g.jvmti, cls, &n, &fs));
    buf_out_u32(out, (uint32_t)n);
    int status = 0;
    for (jint i = 0; i < n && !status; i++) {
        char *name = NULL, *sig = NULL, *gen = NULL;
        jint mods = 0;
        jboolean synth = JNI_FALSE;
        jvmtiError err = (*base_g.jvmti)->GetFieldName(base_g.jvmti, cls, fs[i], &name, &sig, &gen);
        if (err == JVMTI_ERROR_NONE) err = (*base_g.jvmti)->GetFieldModifiers(base_g.jvmti, cls, fs[i], &mods);
        if (err == JVMTI_ERROR_NONE && base_g.caps.can_get_synthetic_attribute)
            err = (*base_g.jvmti)->IsFieldSynthetic(base_g.jvmti, cls, fs[i], &synth);
        if (err != JVMTI_ERROR_NONE) {
            status = (int)err;
        } else {
            objects_field_remember(env, fs[i], cls, (mods & 0x0008) != 0, values_tag_of_signature(sig));
            buf_out_u64(out, (uint64_t)(uintptr_t)fs[i]);
            buf_out_str(out, name);
            buf_out_str(out, sig);
            buf_out_str(out, gen);
            buf_out_u32(out, (uint32_t)mods);
            buf_out_u8(out, synth ? 1 : 0);
        }
        base_jvmti_free(name);
        base_jvmti_free(sig);
        base_jvmti_free(gen);
    }
    base_jvmti_free(fs);
    return status;
}

/* A method's code range and line table (freed here). */
static void ob_line_table(outbuf *out, jlocation start, jlocation end, jint n, jvmtiLineNumberEntry *lines) {
    buf_out_u64(out, (uint64_t)start);
    buf_out_u64(out, (uint64_t)end);
    buf_out_u32(out, (uint32_t)n);
    for (jint i = 0; i < n; i++) {
        buf_out_u64(out, (uint64_t)lines[i].start_location);
        buf_out_u32(out, (uint32_t)lines[i].line_number);
    }
    base_jvmti_free(lines);
}

/* One method's line table after its declared facts: GetLineNumberTable's status travels in the reply
 * instead of failing it, since native methods and classes without -g:lines are normal. */
static void ob_method_lines(outbuf *out, jmethodID m) {
    jlocation start = -1, end = -1;
    if ((*base_g.jvmti)->GetMethodLocation(base_g.jvmti, m, &start, &end) != JVMTI_ERROR_NONE) start = end = -1;
    jint n = 0;
    jvmtiLineNumberEntry *lines = NULL;
    jvmtiError err = (*base_g.jvmti)->GetLineNumberTable(base_g.jvmti, m, &n, &lines);
    if (err != JVMTI_ERROR_NONE) n = 0;
    buf_out_u32(out, (uint32_t)err);
    ob_line_table(out, start, end, n, lines);
}

static int class_methods(JNIEnv *env, inbuf *in, outbuf *out, bool with_lines) {
    CLASS_ARG(cls);
    jint n;
    jmethodID *ms;
    CHECK((*base_g.jvmti)->GetClassMethods(base_g.jvmti, cls, &n, &ms));
    buf_out_u32(out, (uint32_t)n);
    int status = 0;
    for (jint i = 0; i < n && !status; i++) {
        char *name = NULL, *sig = NULL, *gen = NULL;
        jint mods = 0;
        jboolean synth = JNI_FALSE;
        jvmtiError err = (*base_g.jvmti)->GetMethodName(base_g.jvmti, ms[i], &name, &sig, &gen);
        if (err == JVMTI_ERROR_NONE) err = (*base_g.jvmti)->GetMethodModifiers(base_g.jvmti, ms[i], &mods);
        if (err == JVMTI_ERROR_NONE && base_g.caps.can_get_synthetic_attribute)
            err = (*base_g.jvmti)->IsMethodSynthetic(base_g.jvmti, ms[i], &synth);
        if (err != JVMTI_ERROR_NONE) {
            status = (int)err;
        } else {
            objects_method_remember(env, ms[i], cls);
            buf_out_u64(out, (uint64_t)(uintptr_t)ms[i]);
            buf_out_str(out, name);
            buf_out_str(out, sig);
            buf_out_str(out, gen);
            buf_out_u32(out, (uint32_t)mods);
            buf_out_u8(out, synth ? 1 : 0);
            if (with_lines) ob_method_lines(out, ms[i]);
        }
        base_jvmti_free(name);
        base_jvmti_free(sig);
        base_jvmti_free(gen);
    }
    base_jvmti_free(ms);
    return status;
}

int exec_classes_class_methods(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_methods(env, in, out, false);
}

int exec_classes_class_methods_lines(JNIEnv *env, inbuf *in, outbuf *out) {
    return class_methods(env, in, out, true);
}

int exec_classes_class_version(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jint minor, major;
    CHECK((*base_g.jvmti)->GetClassVersionNumbers(base_g.jvmti, cls, &minor, &major));
    buf_out_u32(out, (uint32_t)major);
    buf_out_u32(out, (uint32_t)minor);
    return 0;
}

int exec_classes_class_constant_pool(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    jint count, nbytes;
    unsigned char *bytes;
    CHECK((*base_g.jvmti)->GetConstantPool(base_g.jvmti, cls, &count, &nbytes, &bytes));
    buf_out_u32(out, (uint32_t)count);
    buf_out_blob(out, bytes, (uint32_t)nbytes);
    base_jvmti_free(bytes);
    return 0;
}

int exec_classes_class_module(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    /* JVMTI has no GetClassModule; Class.getModule() is side-effect free. */
    jmethodID get_module = (*env)->GetMethodID(env, base_g.cls_class, "getModule", "()Ljava/lang/Module;");
    if (get_module == NULL) {
        (*env)->ExceptionClear(env);
        return LS_NOT_CAPABLE;
    }
    jobject module = (*env)->CallObjectMethod(env, cls, get_module);
    if ((*env)->ExceptionCheck(env)) {
        (*env)->ExceptionClear(env);
        return LS_INTERNAL;
    }
    buf_out_u64(out, objects_id(env, module));
    return 0;
}

int exec_classes_class_object_kind(JNIEnv *env, inbuf *in, outbuf *out) {
    CLASS_ARG(cls);
    buf_out_u8(out, values_ref_kind_of(cls));
    return 0;
}

int exec_classes_class_get_statics(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    uint32_t n = buf_in_u32(in);
    if (in->bad || n > in->len) return LS_BAD_MESSAGE;
    size_t items = in->pos;
    in->pos += (size_t)n * 9;
    PARSED(in);
    in->pos = items;
    jclass cls;
    int st = values_class_from_id(env, id, &cls);
    if (st) return st;
    return values_get_fields_checked(env, in, out, n, cls, NULL);
}

int exec_classes_class_set_statics(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)out;
    uint64_t id = buf_in_u64(in);
    uint32_t n = buf_in_u32(in);
    jclass cls;
    if (in->bad) return LS_BAD_MESSAGE;
    int st = values_class_from_id(env, id, &cls);
    if (st) return st;
    return values_set_fields_checked(env, in, n, cls, NULL);
}

int exec_classes_loader_visible_classes(JNIEnv *env, inbuf *in, outbuf *out) {
    uint64_t id = buf_in_u64(in);
    PARSED(in);
    jobject loader = NULL;
    if (id != 0) {
        /* JVMTI would take any object for a loader (and HotSpot may crash on one that is not). */
        int st = values_object_of_class(env, id, base_g.cls_class_loader, JE_INVALID_CLASS_LOADER, &loader);
        if (st) return st;
    }
    jint n;
    jclass *classes;
    CHECK((*base_g.jvmti)->GetClassLoaderClasses(base_g.jvmti, loader, &n, &classes));
    buf_out_u32(out, (uint32_t)n);
    for (jint i = 0; i < n; i++) {
        buf_out_u64(out, objects_id(env, classes[i]));
        buf_out_u8(out, values_ref_kind_of(classes[i]));
        (*env)->DeleteLocalRef(env, classes[i]);
    }
    base_jvmti_free(classes);
    return 0;
}

/* ---- methods ----------------------------------------------------------------------------- */

#define METHOD_ARG(m)                              \
    jmethodID m;                                   \
    {                                              \
        uint64_t mid_ = buf_in_u64(in);                \
        PARSED(in);                                \
        int st_ = objects_method_check(mid_, &m);          \
        if (st_) return st_;                       \
    }

int exec_classes_method_line_table(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    METHOD_ARG(m);
    jlocation start, end;
    CHECK((*base_g.jvmti)->GetMethodLocation(base_g.jvmti, m, &start, &end));
    jint n;
    jvmtiLineNumberEntry *lines;
    CHECK((*base_g.jvmti)->GetLineNumberTable(base_g.jvmti, m, &n, &lines));
    ob_line_table(out, start, end, n, lines);
    return 0;
}

int exec_classes_method_variable_table(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    METHOD_ARG(m);
    jint slots, n;
    jvmtiLocalVariableEntry *vars;
    CHECK((*base_g.jvmti)->GetArgumentsSize(base_g.jvmti, m, &slots));
    if (!base_g.caps.can_access_local_variables) return LS_NOT_CAPABLE;
    CHECK((*base_g.jvmti)->GetLocalVariableTable(base_g.jvmti, m, &n, &vars));
    buf_out_u32(out, (uint32_t)slots);
    buf_out_u32(out, (uint32_t)n);
    for (jint i = 0; i < n; i++) {
        buf_out_u64(out, (uint64_t)vars[i].start_location);
        buf_out_str(out, vars[i].name);
        buf_out_str(out, vars[i].signature);
        buf_out_str(out, vars[i].generic_signature);
        buf_out_u32(out, (uint32_t)vars[i].length);
        buf_out_u32(out, (uint32_t)vars[i].slot);
        base_jvmti_free(vars[i].name);
        base_jvmti_free(vars[i].signature);
        base_jvmti_free(vars[i].generic_signature);
    }
    base_jvmti_free(vars);
    return 0;
}

int exec_classes_method_bytecodes(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    METHOD_ARG(m);
    jint n;
    unsigned char *code;
    CHECK((*base_g.jvmti)->GetBytecodes(base_g.jvmti, m, &n, &code));
    buf_out_blob(out, code, (uint32_t)n);
    base_jvmti_free(code);
    return 0;
}

int exec_classes_method_is_obsolete(JNIEnv *env, inbuf *in, outbuf *out) {
    (void)env;
    uint64_t mid = buf_in_u64(in);
    PARSED(in);
    jmethodID m;
    bool unloaded;
    int st = objects_method_check_unloaded(mid, &m, &unloaded);
    if (unloaded) {  /* a method of an unloaded class: obsolete, as HotSpot (and so the reference) says */
        buf_out_u8(out, 1);
        return 0;
    }
    if (st) return st;
    jboolean b;
    CHECK((*base_g.jvmti)->IsMethodObsolete(base_g.jvmti, m, &b));
    buf_out_u8(out, b ? 1 : 0);
    return 0;
}

int exec_classes_method_declaring_class(JNIEnv *env, inbuf *in, outbuf *out) {
    METHOD_ARG(m);
    jclass cls;
    CHECK((*base_g.jvmti)->GetMethodDeclaringClass(base_g.jvmti, m, &cls));
    buf_out_u64(out, objects_id(env, cls));
    buf_out_u8(out, values_ref_kind_of(cls));
    return 0;
}
