#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
