package dev.branchstate.core;

/**
 * Told of every {@link StateEvent}. Called on the thread that did the work, never the UI thread: a UI listener
 * must hand over to the display thread itself, and no listener may block.
 */
@FunctionalInterface
public interface IStateListener {

	void stateChanged(StateEvent event);
}
