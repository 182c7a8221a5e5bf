from forethought.cli.main import main

main()
