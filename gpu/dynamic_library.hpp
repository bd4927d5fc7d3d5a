#pragma once
// A shared library opened at run time (dlopen), closed when the owner goes
// away. GPU vendors' libraries come with their drivers, not with ladder:
// loading them at run time keeps ladder runnable on machines without them,
// where a failed open is a normal answer, not an error.
#include <string>

namespace ladder::gpu {

class DynamicLibrary {
public:
    DynamicLibrary() = default;
    // Opens `soname` (RTLD_NOW | RTLD_LOCAL, plus `extra_flags`); check
    // loaded() and error() afterwards: a missing library does not throw.
    explicit DynamicLibrary(const std::string& soname, int extra_flags = 0);
    DynamicLibrary(DynamicLibrary&& other) noexcept;
    DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;
    ~DynamicLibrary();

    bool loaded() const { return handle_ != nullptr; }
    const std::string& error() const { return error_; }  // dlerror() of a failed open
    void* handle() const { return handle_; }

    // The address of `name`, or nullptr. The caller casts it to the C
    // function type it declared (dlsym gives no type information).
    void* symbol(const char* name) const;

    template <typename Fn>
    Fn* function(const char* name) const {
        return reinterpret_cast<Fn*>(symbol(name));
    }

private:
    void close() noexcept;
    void* handle_ = nullptr;
    std::string error_;
};

// The path of an already-loaded shared object whose file name starts with
// `prefix` ("libSvtAv1Enc.so"), or "" when none is loaded. Looks through the
// process's loaded objects, so it finds the library whatever its version
// suffix (.so.1 on Debian 12, .so.2 and later elsewhere).
std::string loaded_library_path(const std::string& prefix);

}  // namespace ladder::gpu
