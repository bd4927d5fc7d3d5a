#include "gpu/dynamic_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <utility>

namespace ladder::gpu {

DynamicLibrary::DynamicLibrary(const std::string& soname, int extra_flags) {
    handle_ = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL | extra_flags);
    if (!handle_) {
        const char* why = dlerror();
        error_ = why ? why : soname + ": cannot be opened";
    }
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), error_(std::move(other.error_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
    if (this != &other) {
        close();
        handle_ = std::exchange(other.handle_, nullptr);
        error_ = std::move(other.error_);
    }
    return *this;
}

DynamicLibrary::~DynamicLibrary() { close(); }

void DynamicLibrary::close() noexcept {
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
}

void* DynamicLibrary::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

namespace {

struct Search {
    const std::string* prefix;
    std::string found;
};

int visit(dl_phdr_info* info, std::size_t, void* data) {
    auto* search = static_cast<Search*>(data);
    const std::string path = info->dlpi_name ? info->dlpi_name : "";
    const auto slash = path.rfind('/');
    const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
    if (file.rfind(*search->prefix, 0) == 0) {
        search->found = path;
        return 1;  // stop iterating
    }
    return 0;
}

}  // namespace

std::string loaded_library_path(const std::string& prefix) {
    Search search{&prefix, {}};
    dl_iterate_phdr(visit, &search);
    return search.found;
}

}  // namespace ladder::gpu
