/// The release of OpenCoreLocation this build is: what `gpsloc --version` and `gpslocd --version`
/// print, kept here alone. CHANGELOG.md says what each release holds.
public enum ProductVersion {
    public static let current = "0.1.0"
}
