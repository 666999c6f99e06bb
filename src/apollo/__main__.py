from apollo.cli.entry import main

main()
