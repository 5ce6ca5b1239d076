from arena_api.cli import main

main()
