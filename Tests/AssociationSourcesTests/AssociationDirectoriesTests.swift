import AssociationSources
import Testing

@Suite struct AssociationDirectoriesTests {
    @Test func unsetVariablesTakeTheSpecificationsDefaults() {
        let directories = AssociationDirectories(environment: ["HOME": "/home/ada"])
        #expect(directories.installed == [
            "/home/ada/.local/share/waypost/associations", "/usr/local/share/waypost/associations", "/usr/share/waypost/associations",
        ])
        #expect(directories.user == "/home/ada/.config/waypost/associations")
        #expect(directories.cache == "/home/ada/.cache/waypost/associations")
    }

    @Test func setVariablesAreUsedInOrderAndDataHomeComesFirst() {
        let directories = AssociationDirectories(environment: [
            "HOME": "/home/ada", "XDG_DATA_HOME": "/data/", "XDG_DATA_DIRS": "/opt/share:/usr/share/:/opt/share",
            "XDG_CONFIG_HOME": "/config", "XDG_CACHE_HOME": "/cache",
        ])
        #expect(directories.installed == [
            "/data/waypost/associations", "/opt/share/waypost/associations", "/usr/share/waypost/associations",
        ])
        #expect(directories.user == "/config/waypost/associations")
        #expect(directories.cache == "/cache/waypost/associations")
    }

    @Test func emptyAndRelativeValuesAreIgnored() {
        let directories = AssociationDirectories(environment: [
            "HOME": "/home/ada", "XDG_DATA_HOME": "", "XDG_DATA_DIRS": "share:", "XDG_CONFIG_HOME": "config", "XDG_CACHE_HOME": "",
        ])
        #expect(directories == AssociationDirectories(environment: ["HOME": "/home/ada"]))
        #expect(AssociationDirectories(environment: ["XDG_DATA_DIRS": "rel:/opt/share"], home: "/h").installed == [
            "/h/.local/share/waypost/associations", "/opt/share/waypost/associations",
        ])
    }

    @Test func withoutHomeTheGivenHomeIsUsed() {
        #expect(AssociationDirectories(environment: [:], home: "/var/lib/ada").cache == "/var/lib/ada/.cache/waypost/associations")
    }
}
