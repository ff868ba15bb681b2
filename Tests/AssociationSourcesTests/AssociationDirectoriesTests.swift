import AssociationSources
import Testing

@Suite struct AssociationDirectoriesTests {
    @Test func dataHomeComesFirstAndADirectoryNamedTwiceCountsOnce() {
        let directories = AssociationDirectories(
            dataHome: "/data/", dataDirectories: ["/opt/share", "/usr/share/", "/opt/share"], configHome: "/config", cacheHome: "/cache")
        #expect(directories.installed == [
            "/data/waypost/associations", "/opt/share/waypost/associations", "/usr/share/waypost/associations",
        ])
        #expect(directories.user == "/config/waypost/associations")
        #expect(directories.cache == "/cache/waypost/associations")
    }
}
