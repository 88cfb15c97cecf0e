package tokens;

/** A hot method: a condition that turns true only at its Nth call. */
class Hot {
    static long spin(long n) {
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc += step(i);
        }
        return acc;
    }

    static long step(long i) {
        long r = i * 31 + 7;  // @marker tokens_hot
        return r & 0xff;
    }
}
