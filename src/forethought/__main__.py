from forethought.interfaces.cli.main import main

main()
