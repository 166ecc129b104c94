// The standalone app's X11 connection, where JUCE 7.0.5 leaves two holes (Linux and BSD only;
// elsewhere both are no-ops):
// - JUCE looks its window-manager atoms up with XInternAtom (..., only_if_exists = True). On a
//   display where no window manager ran yet (the app started first, the manager later, as a
//   session that starts them in parallel, or a user who starts one by hand), WM_PROTOCOLS and
//   WM_DELETE_WINDOW do not exist yet: JUCE's windows then say nothing of WM_DELETE_WINDOW, and a
//   window manager that starts later closes such a window by killing the client (XKillClient).
//   The app's X connection breaks, and Xlib ends the process with exit code 1, with no shutdown:
//   closing the Audio/MIDI Settings window lost the unsaved state. WindowManagerAtoms creates the
//   atoms before JUCE connects, and holds its own connection until JUCE's is open (the server
//   forgets its atoms when its last client leaves).
// - A connection that breaks anyway (the X server ends, a kill by hand) ends the process in Xlib.
//   onConnectionLost() runs a function first: the app saves its state there.
//
// Threading contract: the message thread only (the app's constructor, initialise(), and Xlib's
// I/O error handler, which runs inside JUCE's event loop on that thread).
#pragma once

#include <functional>

namespace sonotype::app
{

class WindowManagerAtoms
{
public:
    /** Creates the atoms on $DISPLAY (nothing where there is no display). */
    WindowManagerAtoms();
    ~WindowManagerAtoms();
    /** Closes this connection (once JUCE's is open). */
    void release();
    WindowManagerAtoms (const WindowManagerAtoms&) = delete;
    WindowManagerAtoms& operator= (const WindowManagerAtoms&) = delete;

private:
    void* display_ = nullptr; // ::Display*, kept out of this header (Xlib's macros clash with JUCE)
};

/** Runs `save` if the app's X connection breaks, before Xlib ends the process; call after JUCE has
    opened its display (it installs its own handler then, which this one replaces). */
void onConnectionLost (std::function<void()> save);

} // namespace sonotype::app
