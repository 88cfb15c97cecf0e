// A Kotlin program whose inline functions give its class a SourceDebugExtension (kotlinc's SMAP: strata
// Kotlin and KotlinDebug).  Compiled by kotlinc 1.3.31 into classes/: see tests/differential/test_kotlin_smap.py.

inline fun twice(f: () -> Unit) {
    f() // @marker KT_TWICE1
    f() // @marker KT_TWICE2
}

inline fun <T> measured(label: String, block: () -> T): T {
    val r = block() // @marker KT_MEASURED1
    KtSink.seen = label.length // @marker KT_MEASURED2
    return r
}

object KtSink {
    @JvmField var seen = 0
}

fun work(n: Int): Int {
    var total = 0 // @marker KT_W1
    twice {
        total += n // @marker KT_W2
    }
    val x = measured("x") { total * 2 } // @marker KT_W3
    return x + 1 // @marker KT_W4
}

fun run(rounds: Int): Int {
    var sum = 0 // @marker KT_R1
    for (i in 0 until rounds) {
        sum += work(i) // @marker KT_R2
    }
    return sum // @marker KT_R3
}
