#include "app/X11Connection.h"

#include <juce_core/system/juce_TargetPlatform.h>

#include <utility>

#if JUCE_LINUX || JUCE_BSD
#include <X11/Xlib.h>
#endif

namespace sonotype::app
{

#if JUCE_LINUX || JUCE_BSD

namespace
{
    // The atoms JUCE 7.0.5 looks up "if exists" to tell a window manager about its windows: the
    // protocols (a close that asks, rather than kills), the window's type and state, and its
    // decorations (without _MOTIF_WM_HINTS, a manager that starts later puts its title bar over
    // JUCE's own). Not those JUCE reads from the manager (_NET_WORKAREA), nor older managers' own.
    const char* const kAtoms[] = { "WM_PROTOCOLS",
                                   "WM_DELETE_WINDOW",
                                   "WM_TAKE_FOCUS",
                                   "_NET_WM_PING",
                                   "WM_STATE",
                                   "WM_CHANGE_STATE",
                                   "_NET_WM_WINDOW_TYPE",
                                   "_NET_WM_WINDOW_TYPE_NORMAL",
                                   "_NET_WM_WINDOW_TYPE_COMBO",
                                   "_NET_WM_STATE",
                                   "_NET_WM_STATE_HIDDEN",
                                   "_NET_WM_STATE_FULLSCREEN",
                                   "_NET_WM_ALLOWED_ACTIONS",
                                   "_NET_FRAME_EXTENTS",
                                   "_MOTIF_WM_HINTS" };

    std::function<void()>& savingOnLoss()
    {
        static std::function<void()> save;
        return save;
    }

    XIOErrorHandler& previousHandler()
    {
        static XIOErrorHandler previous = nullptr;
        return previous;
    }

    int connectionLost (Display* display)
    {
        // Xlib ends the process when this returns: what is unsaved is saved first, once.
        if (auto save = std::exchange (savingOnLoss(), {}))
            save();
        if (auto* previous = previousHandler())
            return previous (display);
        return 0;
    }
} // namespace

WindowManagerAtoms::WindowManagerAtoms()
{
    auto* display = XOpenDisplay (nullptr);
    if (display == nullptr)
        return; // no display: JUCE will find none either
    for (const auto* name : kAtoms)
        XInternAtom (display, name, False);
    XSync (display, False);
    display_ = display;
}

WindowManagerAtoms::~WindowManagerAtoms()
{
    release();
}

void WindowManagerAtoms::release()
{
    if (display_ != nullptr)
        XCloseDisplay (static_cast<Display*> (std::exchange (display_, nullptr)));
}

void onConnectionLost (std::function<void()> save)
{
    savingOnLoss() = std::move (save);
    previousHandler() = XSetIOErrorHandler (connectionLost);
}

#else

WindowManagerAtoms::WindowManagerAtoms() = default;
WindowManagerAtoms::~WindowManagerAtoms() = default;
void WindowManagerAtoms::release() {}
void onConnectionLost (std::function<void()>) {}

#endif

} // namespace sonotype::app
