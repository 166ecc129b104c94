#include "support/WindowCapture.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>

namespace sonotype::testing
{
namespace
{
    Window findWindow (Display* display, Window window, const std::string& title)
    {
        XTextProperty name {}; // JUCE sets WM_NAME as UTF8_STRING, which XFetchName does not return
        if (XGetWMName (display, window, &name) != 0 && name.value != nullptr)
        {
            const bool match = title == std::string (reinterpret_cast<const char*> (name.value), name.nitems);
            XFree (name.value);
            if (match)
                return window;
        }
        Window root = 0, parent = 0, *children = nullptr;
        unsigned count = 0;
        Window found = 0;
        if (XQueryTree (display, window, &root, &parent, &children, &count) != 0)
        {
            for (unsigned i = 0; i < count && found == 0; ++i)
                found = findWindow (display, children[i], title);
            if (children != nullptr)
                XFree (children);
        }
        return found;
    }
} // namespace

WindowPixels captureWindow (const std::string& title)
{
    WindowPixels pixels;
    Display* display = XOpenDisplay (nullptr);
    if (display == nullptr)
        return pixels;
    const Window window = findWindow (display, DefaultRootWindow (display), title);
    XWindowAttributes attributes {};
    if (window != 0 && XGetWindowAttributes (display, window, &attributes) != 0 && attributes.map_state == IsViewable)
        if (XImage* image = XGetImage (display, window, 0, 0, static_cast<unsigned> (attributes.width), static_cast<unsigned> (attributes.height), AllPlanes, ZPixmap))
        {
            pixels.width = attributes.width;
            pixels.height = attributes.height;
            pixels.argb.resize (static_cast<std::size_t> (pixels.width) * static_cast<std::size_t> (pixels.height));
            for (int y = 0; y < pixels.height; ++y)
                for (int x = 0; x < pixels.width; ++x)
                    pixels.argb[static_cast<std::size_t> (y * pixels.width + x)] = 0xff000000u | static_cast<uint32_t> (XGetPixel (image, x, y) & 0xffffff);
            XDestroyImage (image);
        }
    XCloseDisplay (display);
    return pixels;
}

} // namespace sonotype::testing
