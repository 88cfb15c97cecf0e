package jdwpd.agent;

import java.util.Spliterator;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The agent's one class in the debugged VM (agent/live.c): the top frames of the calling thread's
 * stack as a live stack walker sees them, with their locals, read without a VM operation.
 *
 * <p>The agent calls {@code walker.walk(new TopFrames(n))} from a JVMTI callback, through JNI, so
 * no frame of its own sits above the event's frame: the walk starts at the frame the event
 * happened in.  It takes frames one at a time from the stream's source (no stream stages: nothing
 * to load or link on the event path once a first walk has run).
 */
public final class TopFrames implements Function<Stream<StackWalker.StackFrame>, Object[]>, Consumer<StackWalker.StackFrame> {
    private final Object[] frames;
    private int taken;

    public TopFrames(int count) {
        frames = new Object[count];
    }

    @Override
    public Object[] apply(Stream<StackWalker.StackFrame> stream) {
        Spliterator<StackWalker.StackFrame> source = stream.spliterator();
        while (taken < frames.length && source.tryAdvance(this)) {
            // each step stores one frame
        }
        return frames;
    }

    @Override
    public void accept(StackWalker.StackFrame frame) {
        frames[taken++] = frame;
    }
}
